"""Lecture 09's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("09", "09_vision_transformer")
