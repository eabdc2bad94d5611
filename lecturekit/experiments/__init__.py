"""Worked examples and measurements that notebooks and slide figures share: the slides' worked
examples (``examples``), the toy task whose heads specialise (``heads_demo``), the attention
measurements of lectures 03-04 (``measurements``) and the evaluation of translation models
(``translation``)."""
