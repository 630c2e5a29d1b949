"""Pure game rules: standard library only (no I/O, no wall clock, no third-party imports)."""
