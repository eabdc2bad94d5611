"""Deterministic toy datasets for the lectures (generated in code, never downloaded)."""
