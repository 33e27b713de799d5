"""Protocols turn dataset rows into requests and responses back into predictions."""
