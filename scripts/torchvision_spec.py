"""--torchvision NAME[@BATCH],... for peer_compare.py and make_zoo.py: more torchvision
classifiers (other members of the benchmarked families), with seeded random weights."""
import torchvision


MAX_BATCH = 256  # far past the benchmarks' 8; a typo's 10^20 would only exhaust memory


def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


def torchvision_models(spec):
    """{name, or name_batchB: (constructor, input shape)} at 224x224 (inception_v3: 299).
    Raises ValueError naming the item that is not a torchvision model or has a bad batch."""
    out = {}
    for item in filter(None, spec.split(",")):
        name, at, batch = item.partition("@")
        if not name or not callable(getattr(torchvision.models, name, None)):
            raise ValueError(f"--torchvision: torchvision.models has no model '{name}'")
        if at and not (batch.isdigit() and 1 <= int(batch) <= MAX_BATCH):
            raise ValueError(f"--torchvision: the batch in '{item}' must be an integer from 1 to {MAX_BATCH}")
        n = int(batch) if at else 1
        kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
        size = 299 if name == "inception_v3" else 224
        out[name if n == 1 else f"{name}_batch{n}"] = (tv(name, **kw), (n, 3, size, size))
    return out
