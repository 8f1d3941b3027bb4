"""engine.transformer.training: the loss falls, budgets and the stop flag end a run, checkpoints round-trip (the
worker threads and the gate that run it for a page: tests/engine/transformer/test_training_jobs.py)."""
from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest
import torch

from engine import limits
from engine.transformer.config import PRESETS, TransformerConfig
from engine.transformer.model import TransformerLM
from engine.transformer.training import (
    TrainConfig, Trainer, check_trainable, learning_rate, load_checkpoint, random_windows, save_checkpoint, train
)

CONFIG = TransformerConfig(vocab_size=5, context_length=16, d_model=32, n_heads=4, d_ff=64, n_layers=2,
                           layer_norm="pre", positional="learned", final_norm=True)


def pattern_ids(n: int, seed: int = 0) -> np.ndarray:
    """A text with structure: 'abcd' repeated with the odd random letter, so a model can learn it."""
    rng = np.random.default_rng(seed)
    ids = np.tile(np.arange(4), n // 4 + 1)[:n]
    noise = rng.random(n) < 0.05
    ids[noise] = 4
    return ids


def model(seed: int = 0, config: TransformerConfig = CONFIG) -> TransformerLM:
    torch.manual_seed(seed)
    return TransformerLM(config)


def test_a_short_run_lowers_the_held_out_loss():
    result = train(model(), pattern_ids(5000), pattern_ids(1000, seed=1),
                   TrainConfig(batch_size=8, max_steps=60, warmup_steps=5, learning_rate=3e-3, eval_every=20,
                               eval_batches=2))
    assert result.stopped_by == "steps" and result.steps[-1] == 60
    assert result.eval_steps == [20, 40, 60]
    assert result.held_out_loss[-1] < 0.6 * result.held_out_loss[0] < np.log(5)
    assert np.mean(result.train_loss[-10:]) < np.mean(result.train_loss[:10])
    assert result.tokens_seen == 60 * 8 * 16 and result.tokens_per_second > 0


def test_same_seed_same_run():
    runs = [train(model(), pattern_ids(3000), pattern_ids(500, 1),
                  TrainConfig(max_steps=5, eval_every=5, eval_batches=1, seed=3)) for _ in range(2)]
    assert runs[0].train_loss == runs[1].train_loss


def test_time_budget_and_stop_flag_end_a_run():
    by_time = train(model(), pattern_ids(3000), pattern_ids(500, 1),
                    TrainConfig(max_steps=10_000, max_seconds=0.3, eval_every=1000, eval_batches=1))
    assert by_time.stopped_by == "time" and by_time.steps[-1] < 10_000 and by_time.held_out_loss
    stop = threading.Event()
    heard = []

    def listen(progress):
        heard.append(progress)
        if progress.step == 3:
            stop.set()
    stopped = train(model(), pattern_ids(3000), pattern_ids(500, 1),
                    TrainConfig(max_steps=100, eval_every=50, eval_batches=1), stop=stop, on_progress=listen)
    assert stopped.stopped_by == "stop" and stopped.steps[-1] == 3
    assert [p.step for p in heard] == [1, 2, 3] and stopped.eval_steps == [3]


def test_schedule_warms_up_then_follows_the_cosine():
    config = TrainConfig(learning_rate=1e-3, min_learning_rate=1e-4, warmup_steps=10, max_steps=100)
    assert learning_rate(config, 0, 0.0) == pytest.approx(1e-4)
    assert learning_rate(config, 9, 0.1) == pytest.approx(1e-3)
    assert learning_rate(config, 50, 0.5) == pytest.approx(1e-4 + 0.9e-3 * 0.5)
    assert learning_rate(config, 99, 1.0) == pytest.approx(1e-4)


def test_windows_are_next_token_pairs():
    ids = torch.arange(100)
    x, y = random_windows(ids, 4, 8, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (4, 8)
    assert torch.equal(y[:, :-1], x[:, 1:]) and torch.equal(y[:, -1], x[:, -1] + 1)


def test_clipping_inside_adamw_equals_clip_grad_norm_then_adamw():
    config = TrainConfig(batch_size=4, grad_clip=0.05, seed=0, precision="float32")   # a small clip: it clips
    ours, peer = model(), model()
    trainer = Trainer(ours, pattern_ids(2000), config)
    decay = [p for p in peer.parameters() if p.dim() >= 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": [p for p in peer.parameters() if p.dim() < 2], "weight_decay": 0.0}],
                                  lr=1e-3, betas=(config.beta1, config.beta2), foreach=False)
    generator = torch.Generator().manual_seed(config.seed)
    for _ in range(3):
        trainer.step(1e-3)
        x, y = random_windows(trainer.train_ids, config.batch_size, CONFIG.context_length, generator)
        peer(x, y)[1].backward()
        assert torch.nn.utils.clip_grad_norm_(peer.parameters(), config.grad_clip) > config.grad_clip
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    for mine, theirs in zip(ours.parameters(), peer.parameters()):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)


def test_bfloat16_mixed_precision_trains_like_float32():
    runs = {}
    for precision in ("float32", "bfloat16"):
        trained = model()
        runs[precision] = train(trained, pattern_ids(5000), pattern_ids(1000, seed=1),
                                TrainConfig(batch_size=8, max_steps=40, warmup_steps=5, learning_rate=3e-3,
                                            eval_every=20, eval_batches=2, precision=precision))
        assert all(p.dtype == torch.float32 for p in trained.parameters())     # the weights stay float32
    np.testing.assert_allclose(runs["bfloat16"].train_loss[:15], runs["float32"].train_loss[:15], rtol=0.01)
    np.testing.assert_allclose(runs["bfloat16"].held_out_loss, runs["float32"].held_out_loss, rtol=0.05)


@pytest.mark.parametrize("change, words", [
    (dict(batch_size=0), "batch"), (dict(max_steps=limits.MAX_TRAIN_STEPS + 1), "steps"),
    (dict(learning_rate=2.0), "learning rate"), (dict(max_seconds=-1.0), "time budget"),
    (dict(precision="float16"), "precision"),
])
def test_bad_training_settings_say_why(change, words):
    with pytest.raises(ValueError, match=words):
        TrainConfig(**change)


def test_too_large_a_model_is_not_trained_live():
    with pytest.raises(ValueError, match="limited to"):
        check_trainable(PRESETS["GPT-2 small"], TrainConfig())
    with pytest.raises(ValueError, match="at most"):
        check_trainable(CONFIG, TrainConfig(max_seconds=limits.MAX_TRAIN_SECONDS + 1))
    check_trainable(replace(PRESETS["baby GPT (nanoGPT on a CPU)"], vocab_size=81), TrainConfig())


def test_ids_outside_the_vocabulary_are_refused():
    with pytest.raises(ValueError, match="outside the model's vocabulary"):
        train(model(), np.full(100, 7), pattern_ids(100), TrainConfig(max_steps=1))
    with pytest.raises(ValueError, match="longer than the context"):
        train(model(), pattern_ids(10), pattern_ids(100), TrainConfig(max_steps=1))


def test_checkpoint_round_trip(tmp_path):
    for config in (CONFIG, replace(CONFIG, tied_head=False, positional="sinusoidal", layer_norm="post")):
        original = model(2, config).eval()
        save_checkpoint(original, tmp_path / "small", {"held_out_loss": 1.5, "vocabulary": "abcde"})
        loaded, metadata = load_checkpoint(tmp_path / "small")
        assert loaded.config == config and metadata["vocabulary"] == "abcde"
        idx = torch.tensor([[0, 1, 2, 3, 4]])
        torch.testing.assert_close(loaded(idx)[0], original(idx)[0], rtol=0, atol=0)
        if config.tied_head:
            assert loaded.lm_head.weight is loaded.token_embedding.weight
    assert b"pickle" not in (tmp_path / "small.safetensors").read_bytes()[:200]


def test_damaged_checkpoints_say_so(tmp_path):
    save_checkpoint(model(), tmp_path / "good")
    with pytest.raises(ValueError, match="missing"):
        load_checkpoint(tmp_path / "absent")
    weights = (tmp_path / "good.safetensors").read_bytes()
    (tmp_path / "good.safetensors").write_bytes(weights[: len(weights) // 2])
    with pytest.raises(ValueError, match="damaged"):
        load_checkpoint(tmp_path / "good")
    save_checkpoint(model(), tmp_path / "bad_json")
    (tmp_path / "bad_json.json").write_text("{not json")
    with pytest.raises(ValueError, match="damaged"):
        load_checkpoint(tmp_path / "bad_json")
    save_checkpoint(model(), tmp_path / "other")
    save_checkpoint(model(config=replace(CONFIG, n_layers=1)), tmp_path / "other_small")
    (tmp_path / "other.safetensors").write_bytes((tmp_path / "other_small.safetensors").read_bytes())
    with pytest.raises(ValueError, match="do not match"):
        load_checkpoint(tmp_path / "other")
