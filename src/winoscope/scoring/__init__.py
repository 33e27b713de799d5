"""Scorers: one module per dataset family plus shared statistics."""
