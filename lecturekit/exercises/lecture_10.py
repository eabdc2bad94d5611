"""Lecture 10's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("10", "10_transformer_translation")
