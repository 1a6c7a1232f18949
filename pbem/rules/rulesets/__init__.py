"""Per-ruleset rule code: one module per ruleset (classic, ffg2), behind the named hooks of `base.Hooks`.

The generic sequence of play (pbem/rules/turn.py and friends) calls the hooks; what a ruleset does
differently from the generic engine lives in its module here, its numbers and tables in
pbem/data/<ruleset>/.
"""
