"""Text reports of named tensors."""
DEFAULT_SPEC = ".3f"


def fmt_value(value, spec=DEFAULT_SPEC):
    return format(value, spec)


def summarize(named, spec=DEFAULT_SPEC, skip=()):
    rows = []
    for name, value in sorted(named.items()):
        if name in skip:
            continue
        rows.append(f"{name:<8}{fmt_value(value, spec)}")
    return "\n".join(rows)
