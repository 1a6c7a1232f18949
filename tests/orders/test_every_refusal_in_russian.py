"""Issue 34: every refusal a player can receive from the rules core and the order modules has a Russian
rendering. The test reads the message templates from the code itself (each `problem(...)`,
`OrderProblem(...)`, `PbemError(...)` with a written message in pbem/rules and pbem/orders), fills
each field with a sample (a board name, a number), and renders it as a Russian reply does
(pbem.orders.reply: phrases.problem_text, then rules_text; an ODDS line's: phrases.odds_text). A new
refusal without a pattern or a catalog entry fails here, naming its file and line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pbem.data.loader import load
from pbem.orders.phrases import odds_text, problem_text, reason_text, rules_text

ROOT = Path(__file__).resolve().parents[2] / "pbem"
CALLS = {"problem": 2, "OrderProblem": 3, "PbemError": 0, "OddsTooBig": 0}
"""The calls that make a refusal, and which argument is its message."""
NOT_FOR_PLAYERS = {"pbem/orders/language.py"}
"""Refusals no player's mail can cause (the rules family's own set-up, checked when pbem loads)."""
RS = load("ffg2")
BOARD = {"York", "Romans", "Arthur", "Romano", "British", "Brigantes", "Welsh", "Picts", "Angles", "Rome",
         "Scotland", "Galloway", "Boats"}
"""The samples' names and the names a family's reply writes itself: kept in the Russian text beside the Russian name (`Йорк (York)`)."""


def _template(node) -> str | None:
    """A message argument as a template: `{expression}` for each field; None when it is no written text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _template(node.left), _template(node.right)
        return a + b if a is not None and b is not None else None
    return None


def templates() -> list[tuple[str, str]]:
    out = []
    for path in sorted([*ROOT.joinpath("rules").rglob("*.py"), *ROOT.joinpath("orders").glob("*.py")]):
        where = path.relative_to(ROOT.parent).as_posix()
        if where in NOT_FOR_PLAYERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in CALLS:
                continue
            said = [a for i, a in enumerate(node.args) if i in (CALLS[name], CALLS[name] + 1)]   # message, hint
            said += [k.value for k in node.keywords if k.arg == "hint"]
            for arg in said:
                text = _template(arg)
                if text and not text.startswith("unknown plan"):   # unknown plan: no line can say it
                    out.append((f"{where}:{node.lineno}", text))
    for path in sorted(ROOT.joinpath("rules", "rulesets").glob("*.py")):   # a family's own replies (Rules methods)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.endswith(("_reason", "_refusal")):
                for ret in (n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None):
                    parts = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
                    out += [(f"{path.relative_to(ROOT.parent).as_posix()}:{ret.lineno}", t)
                            for t in map(_template, parts) if t]
    return out


def _sample(expression: str, odds: bool = False) -> str:
    """A value the field `expression` may hold in a real refusal (an ODDS line's `who` is a side)."""
    e = expression.replace(" ", "")
    if odds and e == "who":
        return "attacker"
    if odds and e == "what":
        return "CAV"
    if "nations[" in e or e in ("name", "who", "nat.name"):
        return "Romans"
    if "leader" in e:
        return "Arthur"
    if e == "word":
        return "WITHDRAW"
    if e == "what":
        return "armies"
    if e == "who!r" or e.startswith("word[") or "!r" in e:
        return "'XYZ'"
    if e in ("where",) or "display" in e or "_names" in e:
        return "York"
    if "'hiland'if" in e:
        return "hiland"
    if "join(map(str" in e:
        return "1, 2"
    return "2"


def _filled(template: str, odds: bool = False) -> str:
    return re.sub(r"\{([^{}]+)\}", lambda m: _sample(m.group(1), odds), template)


KEPT = re.compile(r"\b[A-Z]{2,}\b|\([^()]*\b(?:York|Romans|Arthur)\)|\[[^\]]+\]|'[^']*'|«[^»]*»|\b[nk]\b")
"""What a Russian refusal keeps in Latin letters: order words, the board's names, a ruleset's rule names
in brackets, what the player wrote (quoted), the form's letters n and k."""


FAMILY_RS = {"duel": load("duel")}
"""The ruleset whose family's own refusals (Rules.refusal_phrases) a module of its family writes."""


def russian(where: str, text: str) -> str:
    if "/odds.py" in where:
        return odds_text("ru", text)
    rs = next((r for fam, r in FAMILY_RS.items() if f"/rulesets/{fam}" in where), RS)
    done = problem_text("ru", text)
    done = rules_text("ru", rs, done) if done == text else done
    return reason_text("ru", rs, done) if done == text else done    # a family's why-no-effect (_reason)


ALL = templates()


def test_the_refusals_are_found():
    assert len(ALL) > 60
    assert any("does not border" in t for _, t in ALL) and any("too big to compute" in t for _, t in ALL)


@pytest.mark.parametrize("where,template", ALL, ids=[w for w, _ in ALL])
def test_every_refusal_has_a_russian_rendering_with_no_english_left(where, template):
    english = _filled(template, "/odds.py" in where)
    ru = russian(where, english)
    left = [w for w in re.findall(r"[A-Za-z]{2,}", KEPT.sub(" ", ru)) if w not in BOARD and w not in ("FFG",)]
    assert not left, f"{where}: {english!r} -> {ru!r} (English left: {left})"
    kept = [w for w in re.findall(r"[A-Z][a-z]+|\d+", english) if w in BOARD or w.isdigit()]
    assert all(w in ru for w in kept), f"{where}: {english!r} -> {ru!r} (a name or number of the refusal is lost)"
