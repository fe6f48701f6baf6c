"""Generated data of the checks (scripts/release.py writes it): do not edit."""
