"""CLI commands, one module per area of the product (see pbem/cli.py)."""
