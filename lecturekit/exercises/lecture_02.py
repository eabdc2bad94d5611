"""Lecture 02's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("02", "02_attention_scoring")
