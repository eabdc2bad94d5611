"""Lecture 12's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("12", "12_subword_tokenization")
