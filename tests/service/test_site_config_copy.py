"""Issue 33 item 1 — GAMES_DIR/pbem.yaml is read as YAML once, then from the idle folder's JSON copy
while the file is unchanged: an idle cron run need not load the YAML library. The copy is only a
cache: a changed file, a damaged or foreign copy, or settings JSON cannot hold are read as YAML."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pbem.service import idle
from pbem.service.job import site_config

SITE = "from: pbem@example.org\nmail:\n  - {type: folder, inbox: inbox, outbox: outbox}\n"


def _copy(games: Path) -> Path:
    return games / idle.IDLE_DIR / idle.SITE_COPY


def test_the_settings_are_kept_and_read_back_while_the_file_is_unchanged(tmp_path):
    (tmp_path / "pbem.yaml").write_text(SITE)
    first = site_config(tmp_path)
    assert first == {"from": "pbem@example.org", "mail": [{"type": "folder", "inbox": "inbox", "outbox": "outbox"}]}
    assert json.loads(_copy(tmp_path).read_text())["settings"] == first
    assert site_config(tmp_path) == first
    assert site_config(tmp_path) is not site_config(tmp_path)    # a fresh mapping each time: callers may change it


def test_a_changed_file_is_read_again(tmp_path):
    path = tmp_path / "pbem.yaml"
    path.write_text(SITE)
    site_config(tmp_path)
    path.write_text(SITE + "site_dir: site\n")
    assert site_config(tmp_path)["site_dir"] == "site"
    path.write_text("{}\n")
    assert site_config(tmp_path) == {}
    path.unlink()
    assert site_config(tmp_path) == {}


def test_the_copy_is_trusted_only_for_the_same_file(tmp_path):
    path = tmp_path / "pbem.yaml"
    path.write_text(SITE)
    site_config(tmp_path)
    kept = json.loads(_copy(tmp_path).read_text())
    kept["settings"] = {"from": "forged@example.org"}
    kept["stat"][0] += 1            # a copy made of another file
    _copy(tmp_path).write_text(json.dumps(kept))
    assert site_config(tmp_path)["from"] == "pbem@example.org"


def test_a_damaged_or_foreign_copy_is_ignored(tmp_path):
    (tmp_path / "pbem.yaml").write_text(SITE)
    site_config(tmp_path)
    for junk in (b"", b"\xff\xfe", b"[1, 2]", b'{"pbem": "0.0.0-other"}', b'{"pbem": null, "settings": 3}'):
        _copy(tmp_path).write_bytes(junk)
        assert site_config(tmp_path)["from"] == "pbem@example.org"


def test_settings_json_cannot_hold_are_not_kept(tmp_path):
    (tmp_path / "pbem.yaml").write_text(SITE + "started: 2026-12-01\n")     # YAML reads a date
    got = site_config(tmp_path)
    assert str(got["started"]) == "2026-12-01"
    assert not _copy(tmp_path).exists()
    assert site_config(tmp_path) == got


def test_an_idle_run_with_a_kept_copy_does_not_import_the_yaml_library(tmp_path):
    (tmp_path / "pbem.yaml").write_text(SITE)
    site_config(tmp_path)
    code = ("import sys; from pathlib import Path; from pbem.service.job import site_config; "
            f"site_config(Path({str(tmp_path)!r})); print('ruamel' in ' '.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.stdout.strip() == "False"
