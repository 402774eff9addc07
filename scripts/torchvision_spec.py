"""--torchvision NAME[@BATCH],... for peer_compare.py and make_zoo.py: more torchvision
classifiers (other members of the benchmarked families), with seeded random weights."""
import torchvision


def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


def torchvision_models(spec):
    """{name, or name_batchB: (constructor, input shape)} at 224x224 (inception_v3: 299).
    Raises ValueError naming the item that is not a torchvision model or has a bad batch."""
    out = {}
    for item in filter(None, spec.split(",")):
        name, _, batch = item.partition("@")
        if not name or not callable(getattr(torchvision.models, name, None)):
            raise ValueError(f"--torchvision: torchvision.models has no model '{name}'")
        if batch and not (batch.isdigit() and int(batch) > 0):
            raise ValueError(f"--torchvision: the batch in '{item}' must be a positive integer")
        n = int(batch or 1)
        kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
        size = 299 if name == "inception_v3" else 224
        out[name if n == 1 else f"{name}_batch{n}"] = (tv(name, **kw), (n, 3, size, size))
    return out
