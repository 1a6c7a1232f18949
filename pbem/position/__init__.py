"""Positions typed in by people: the `setup:` / `state:` form shared by conformance cases and position
files (`pbem new --position`, `pbem export --position`).

read.py    the setup/state reader (names resolved through the ruleset), used by pbem.cases too
check.py   pure validation of a position against the ruleset (errors and warnings)
write.py   a GameState written back in the same form
file.py    a position file: YAML with line numbers, read + checked, errors naming the line
"""
