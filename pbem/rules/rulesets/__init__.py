"""Per-ruleset rule code: one module per ruleset (classic, ffg2), behind the named hooks of `base.Hooks`.

The generic sequence of play (pbem/rules/turn.py and friends) calls the hooks; what a ruleset does
differently from the generic engine lives in its module here, its numbers and tables in
pbem/data/<ruleset>/.
"""

from pbem.rules.rulesets.base import Hooks
from pbem.rules.rulesets.classic import ClassicHooks
from pbem.rules.rulesets.ffg2 import Ffg2Hooks

HOOKS: dict[str, type[Hooks]] = {cls.name: cls for cls in (Hooks, ClassicHooks, Ffg2Hooks)}
"""ruleset.yaml `hooks:` -> the class whose instance plays that ruleset's special rules."""


def hooks_for(name: str) -> Hooks:
    """The hooks named by ruleset.yaml `hooks:` (KeyError when no such class is registered)."""
    return HOOKS[name]()
