"""The fast YAML writer/reader of state.yaml and the log (pbem.store.blockyaml), checked against
ruamel: whatever it writes ruamel reads to the same value, and whatever it reads it reads as ruamel
does (or it refuses, and the caller asks ruamel)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from ruamel.yaml import YAML

from pbem.store import blockyaml
from pbem.store.yamlio import dump_yaml, parse_plain

SAFE = YAML(typ="safe")
OLD = YAML(typ="rt")   # the emitter older versions wrote the files with
OLD.indent(mapping=2, sequence=4, offset=2)
OLD.width = 4096

texts = hs.text(alphabet=hs.characters(blacklist_categories=("Cs",)), max_size=30)
words = hs.sampled_from(["romans", "null", "yes", "No", "1", "0.5", "1e5", "-3", "a b", "a: b", "#x", "x #y", "- a",
                         "'q'", '"q"', "", " ", "a\nb\n", "a\n", "\tx", "é", "7430a841bd13004b", "0b1010",
                         "0x1F", "~", "2026-12-01T00:00:00Z", "{a}", "[1]", "a,b", "x:", "@a", "!t", "&a", "*a"])
scalars = (hs.none() | hs.booleans() | hs.integers(-10**20, 10**20) | words | texts
           | hs.floats(allow_nan=False, allow_infinity=False))
keys = words | texts | hs.integers(-5, 5)
plain_data = hs.recursive(scalars, lambda inner: hs.lists(inner, max_size=4)
                          | hs.dictionaries(keys, inner, max_size=4), max_leaves=20)


def ruamel_reads(text: str):
    return SAFE.load(text)


@settings(max_examples=400, deadline=None)
@given(hs.dictionaries(keys, plain_data, max_size=5))
def test_what_it_writes_ruamel_reads_back_the_same(data):
    text = blockyaml.dump(data)
    assert ruamel_reads(text) == data
    assert blockyaml.read(text) == data
    assert parse_plain(text, "t") == data


@settings(max_examples=300, deadline=None)
@given(hs.dictionaries(keys, plain_data, max_size=5))
def test_files_of_older_versions_read_as_ruamel_reads_them(data):
    buf = io.StringIO()
    OLD.dump(data, buf)
    text = buf.getvalue()
    try:
        got = blockyaml.read(text)
    except blockyaml.NotBlockStyle:
        return                      # left to ruamel
    assert got == ruamel_reads(text)


@pytest.mark.parametrize("text", [
    "a: 1 # comment\n", "a: [1, 2]\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: 1\na: 2\n", "a: |2\n   x\n",
    "a:\n  - 1\n   - 2\n", "--- \na: 1\n", "a: 'x''y'\n", "a: \"\\x41\"\n", "\ufeffa: 1\n", "a: 1\r\nb: 2\r\n",
    "a: >\n  folded\n", "a: b\n  c\n", "a: 0o17\n", "a: yes\n", "- {\"a\": 1}\n- {\"a\": 1, \"a\": 2}\n",
])
def test_other_yaml_is_refused_or_read_as_ruamel_reads_it(text):
    try:
        expected = ruamel_reads(text)
    except Exception:   # noqa: BLE001 - ruamel refuses: so must the fast reader
        with pytest.raises(blockyaml.NotBlockStyle):
            blockyaml.read(text)
        return
    try:
        got = blockyaml.read(text)
    except blockyaml.NotBlockStyle:
        return
    assert got == expected


def test_events_one_per_line_texts_as_literal_blocks():
    data = {"text": "NATION Romans\n3 Kent -> Sussex\n", "events": [{"type": "moved", "path": ["a", "b"]}],
            "hash": "7430a841bd13004b73430eba47b373759d222bf65ebf026743d0773bde2a0a1c", "time": "2026-12-01T00:00:00Z"}
    text = dump_yaml(data)
    assert "text: |\n  NATION Romans\n  3 Kent -> Sussex\n" in text
    assert '  - {"type": "moved", "path": ["a", "b"]}\n' in text
    assert "hash: 7430a841" in text and 'time: "2026-12-01T00:00:00Z"' in text
    assert parse_plain(text, "t") == data
