"""Lecture 01's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("01", "01_seq2seq_bottleneck")
