"""Helpers every role shares: input checks (``checks``), the config convention of the full
models (``config``) and weight copying from reference implementations (``weights``)."""
