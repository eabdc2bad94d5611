"""Lecture 05's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("05", "05_positional_encoding")
