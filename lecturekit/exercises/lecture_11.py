"""Lecture 11's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("11", "11_efficient_attention")
