"""Lecture 08b's exercises (being written: see lecture_03 for the pattern)."""

from lecturekit.exercises.core import register_lecture

register_lecture("08b", "08b_bert_what_it_learned")
