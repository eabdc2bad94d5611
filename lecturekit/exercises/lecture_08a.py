"""Lecture 08a's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("08a", "08a_bert_pretraining")
