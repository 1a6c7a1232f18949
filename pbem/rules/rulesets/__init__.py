"""The rules families: one module per family (classic, ffg2), each a subclass of `base.Rules`.

The generic sequence of play (pbem/rules/turn.py and friends) calls `rs.rules.<name>(...)`; what a
family does differently from the generic engine lives in its module here, a ruleset's numbers and
tables in pbem/data/<ruleset>/ (ruleset.yaml `family:` names the family). A family registers itself
by subclassing `Rules` (FAMILIES, kept in pbem.rules.ruleset, which imports no family); importing
this package imports every family module.
"""

from pbem.rules.rulesets import classic, duel, ffg2  # noqa: F401  (each registers its family)
from pbem.rules.rulesets.base import FAMILIES, Rules


def rules_for(name: str) -> Rules:
    """The rules family named by ruleset.yaml `family:` (KeyError when no such family is registered)."""
    return FAMILIES[name]()
