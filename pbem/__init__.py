"""pbem — a play-by-email adjudicator for Britannia."""

__version__ = "0.1.0"
