"""The order language of a ruleset: the forms its rules family accepts (`Rules.order_forms`),
resolved from the registered forms (pbem.rules.orders.OrderForm; the generic ones in
pbem.orders.forms), and what is written from them: the hint listing every form, the reply's list,
the examples with the ruleset's names, the players' guide's lists and the prompt's order words.
"""

from __future__ import annotations

from functools import lru_cache

import pbem.orders.forms  # noqa: F401  (registers the generic forms)
from pbem.errors import PbemError
from pbem.records import record
from pbem.rules.orders import OrderForm, forms_generation, registered_forms

# --- a ruleset's language ---------------------------------------------------------------------------
ORDER_KINDS = ("order", "standing")   # the forms an "order line" hint lists (not GAME, NATION, TOKEN, ...)


@record
class Language:
    """The forms a ruleset accepts, resolved from its family's `order_forms` (see `language`)."""

    forms: tuple[OrderForm, ...]
    by_word: dict[str, OrderForm]      # first word of a line (keyword or alias, upper case) -> form
    unworded: tuple[OrderForm, ...]    # forms read without a first word (a move, by its arrow)
    hint: str                          # "An order line is one of: ...", the hint of a line that is no order
    grammar: tuple[str, ...]           # the syntax of every order form, one a line (the reply's list)

    def has(self, keyword: str) -> bool:
        return any(f.keyword == keyword for f in self.forms)

    def order_forms(self) -> tuple[OrderForm, ...]:
        return tuple(f for f in self.forms if f.kind in ORDER_KINDS)


def language(ruleset) -> Language:
    """The order language of `ruleset`: the forms its rules family accepts (`rs.rules.order_forms`)."""
    return _language(tuple(ruleset.rules.order_forms), forms_generation())


@lru_cache(maxsize=64)
def _language(keywords: tuple[str, ...], generation: int) -> Language:
    known = registered_forms()
    missing = [k for k in keywords if k not in known]
    if missing:
        raise PbemError(f"the rules family lists order forms nobody registered: {', '.join(missing)}",
                        hint="register each with pbem.rules.orders.register_form (its family's module)")
    forms = tuple(known[k] for k in keywords)
    by_word = {}
    for f in forms:
        if f.leading_word:
            by_word[f.keyword] = f
    for f in forms:
        if f.leading_word:
            for a in f.aliases:
                by_word.setdefault(a, f)
    grammar = tuple(f.syntax for f in forms if f.kind in ORDER_KINDS)
    return Language(forms, by_word, tuple(f for f in forms if not f.leading_word),
                    "An order line is one of: " + "; ".join(grammar) + ".", grammar)


def every_word() -> frozenset[str]:
    """The first words of every registered form (whatever ruleset accepts it)."""
    return _every_word(forms_generation())


@lru_cache(maxsize=4)
def _every_word(generation: int) -> frozenset[str]:
    return frozenset(w for f in registered_forms().values() if f.leading_word for w in (f.keyword, *f.aliases))


# --- examples and the guide's list ------------------------------------------------------------------
def sample_names(ruleset) -> dict[str, str]:
    """Names of the ruleset to fill the examples in: a land area with a land neighbour that has
    another (a path of three), a sea on a coast, a nation, a leader (display names; a kind the
    ruleset lacks is left out)."""
    rs = ruleset
    out: dict[str, str] = {}
    for a in sorted(rs.areas):
        nexts = sorted(rs.areas[a].land)
        for b in nexts:
            third = sorted(set(rs.areas[b].land) - {a})
            if third:
                out.update(area=rs.display(a), next=rs.display(b), third=rs.display(third[0]))
                break
        if out:
            break
    if rs.seas:
        out["sea"] = rs.display(sorted(rs.seas)[0])
    if rs.nations:
        out["nation"] = rs.display(sorted(rs.nations)[0])
    if rs.leaders:
        out["leader"] = rs.display(sorted(rs.leaders)[0])
    return out


def example(form: OrderForm, ruleset) -> str | None:
    """The form's example with the ruleset's names put in (None when the ruleset lacks one of them)."""
    try:
        return form.example.format(**sample_names(ruleset))
    except KeyError:
        return None


def guide_lines(ruleset) -> list[str]:
    """The players' guide's list of the forms a ruleset accepts: one markdown line per form, each rule
    cited as the ruleset cites it (issue 30 item 5: Rules.cite)."""
    rules = getattr(ruleset, "rules", None)
    cite = (lambda text: rules.cite(ruleset, text)) if rules is not None else (lambda text: text)
    return [f"- `{f.syntax}`: {cite(f.meaning)}." if f.meaning else f"- `{f.syntax}`"
            for f in language(ruleset).forms]


GUIDE_START = "<!-- order forms: generated from the registered forms (pbem.orders.language.guide_section) -->"
GUIDE_END = "<!-- end of the order forms -->"


def guide_section(rulesets) -> str:
    """The players' guide's lists of the forms of each ruleset (docs/PLAYERS.md, between GUIDE_START
    and GUIDE_END): rulesets whose families accept the same forms share one list."""
    groups: dict[tuple[str, ...], list] = {}
    for rs in rulesets:
        groups.setdefault(tuple(guide_lines(rs)), []).append(rs)
    out = [GUIDE_START]
    for lines, members in groups.items():
        out += ["", "Rulesets " + ", ".join(f"`{rs.id}`" for rs in members) + ":" if len(members) > 1
                else f"Ruleset `{members[0].id}`:", "", *lines]
    return "\n".join([*out, "", GUIDE_END])


def with_guide_section(text: str, rulesets) -> str:
    """The guide's text with its lists of forms made anew (run after changing a family's forms)."""
    head, rest = text.split(GUIDE_START, 1)
    return head + guide_section(rulesets) + rest.split(GUIDE_END, 1)[1]


def lead_words(form: OrderForm) -> str:
    """The order words a form's line starts with, from its syntax (`SUBMIT TO`, `CLEAR DEFEND`)."""
    words = []
    for w in form.syntax.split():
        if not (w.isupper() and len(w) > 1 and w.isalpha()):
            break
        words.append(w)
    return " ".join(words)


def prompt_words(ruleset) -> str:
    """The order words of a ruleset in one line (the prompt): the lines' first words, and the moves."""
    return ", ".join(lead_words(f) if f.leading_word else f"moves ({f.syntax.split('  or  ', 1)[0]})"
                     for f in language(ruleset).order_forms())
