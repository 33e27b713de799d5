"""Occupations: real-world gender statistics, lexicons per language and corpus association."""
