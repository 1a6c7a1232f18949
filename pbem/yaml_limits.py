"""Limits a YAML text is held to before it is parsed (a hostile file must not exhaust the parser)."""

from __future__ import annotations


def bracket_depth(text: str) -> int:
    """How deeply the text nests flow brackets ([ and {), counted before parsing: ruamel recurses once
    per level, so a text of thousands of brackets would exhaust the stack."""
    depth = deepest = 0
    for c in text:
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}" and depth:
            depth -= 1
    return deepest
