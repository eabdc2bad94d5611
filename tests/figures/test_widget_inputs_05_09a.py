"""The inputs that the rebuilt widgets of lectures 05-09a make differently from their notebooks
(to stay within the website's time budget, and without training) are the notebooks' inputs."""

import torch


def test_notebook_09a_browsed_scenes_are_made_alone():
    """Notebook 09a cells 2 and 15 browse the first 12 of 1,000 held-out scenes of
    ``default_data(n_train=8)``; the rebuild makes only those 12 (a third of the time)."""
    from lecturekit.datasets.scenes import default_data

    notebook = default_data(n_train=8).test.subset(slice(0, 12))
    rebuilt = default_data(n_train=0, n_test=12).test
    for field in ("images", "boxes", "digits", "relations"):
        assert torch.equal(getattr(notebook, field), getattr(rebuilt, field)), field
    assert notebook.captions == rebuilt.captions


def test_notebook_09_vit_is_the_shipped_recipe():
    """Notebook 09 cell 22, with RETRAIN, trains ``ViT(ViTConfig.tiny())`` (after
    ``torch.manual_seed(0)``) with ``train_classifier(vit, data, epochs=40, seed=0)``; the
    notebook and the rebuild load ``vit_digits``, which ``lecturekit.shipped.vit`` trains with
    exactly these settings."""
    import inspect

    from lecturekit.shipped import shipped_info
    from lecturekit.shipped.vit import train_classifier

    defaults = {k: p.default for k, p in inspect.signature(train_classifier).parameters.items()
                if p.default is not inspect.Parameter.empty}  # fmt: skip
    notebook = {**defaults, "epochs": 40, "seed": 0}
    training = shipped_info("vit_digits").training
    for key in ("epochs", "seed", "batch_size", "lr", "weight_decay", "warmup_epochs",
                "label_smoothing", "max_shift", "rotation", "scale", "augment_prob"):  # fmt: skip
        assert training[key] == notebook[key], key
