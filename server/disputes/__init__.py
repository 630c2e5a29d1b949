"""Disputes of a match's resolutions: filed by a seat or the host, reviewed by replay and what-if on a
private copy, decided by upholding or correcting (docs/AUDIT.md, "Disputes")."""
