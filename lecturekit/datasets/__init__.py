"""Deterministic toy datasets for the lectures (generated in code, never downloaded):

- ``translation``: the toy English → French-like language (lectures 01-10);
- ``stories``: the toy pre-training corpus, its WordPiece vocabulary and exact grammar (08, 14);
- ``pretraining``: BERT's pair inputs from the stories: masked batches, pair streams, held-out
  pairs (lectures 08, 15);
- ``finetuning``: lecture 13's four fine-tuning tasks and their encodings;
- ``icl``: lecture 14's in-context-learning sequences;
- ``variants``: lecture 11b's pointer chains and shape series;
- ``digits``: scikit-learn's 8 × 8 digits with a fixed split and augmentation (lecture 09);
- ``scenes``: lecture 09a's two-digit scenes to caption.
"""
