"""One emitter per output format: ``text`` (rich, for people), ``json`` (stable schema),
``sarif`` (SARIF 2.1.0, code scanning) and ``github`` (workflow annotations). Emitters only
format what they are given."""
