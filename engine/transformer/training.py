"""Training a TransformerLM by next-token prediction, and keeping it in safetensors.

One step: draw B windows of T+1 tokens from the training ids, predict each next token,
    loss = -(1/BT) sum_{b,t} ln P(w_{t+1} | w_<=t),
backpropagate, clip the gradient norm, AdamW. The learning rate warms up linearly, then
follows a cosine down to a floor:  lr = lr_min + (lr_max - lr_min)(1 + cos(pi p)) / 2,
where p is the fraction of the budget used (steps or seconds, whichever runs out first).

A page runs `train` in a worker thread behind a machine-wide gate: engine.transformer.training_jobs.
"""
from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch

from engine.i18n import N_, _
from engine.numbers import grouped
from engine import limits
from engine.transformer.config import TransformerConfig, count_parameters
from engine.transformer.model import TransformerLM
# a run's settings and the live recipe hold no torch: the Block builder's spec reads them at import
from engine.transformer.recipe import LIVE_RECIPE as LIVE_RECIPE
from engine.transformer.recipe import PRECISIONS as PRECISIONS
from engine.transformer.recipe import TrainConfig
from engine.language.tokenizers import id_array

CHECKPOINT_FORMAT = "transformer-playground/1"
def live_schedule(batch_size: int, max_steps: int, max_seconds: float, learning_rate: float,
                  seed: int) -> TrainConfig:
    """A live run's schedule from the five settings a student picks (the Block builder, the Gradio tab):
    the floor a tenth of the peak, warm-up over a tenth of the steps (at most 100), the held-out loss
    about 40 times a run on 4 fixed batches, one thread."""
    return TrainConfig(batch_size=int(batch_size), max_steps=int(max_steps), max_seconds=float(max_seconds),
                       learning_rate=float(learning_rate), min_learning_rate=float(learning_rate) / 10,
                       warmup_steps=min(100, int(max_steps) // 10), eval_every=max(10, int(max_steps) // 40),
                       eval_batches=4, seed=int(seed), threads=1)


def check_trainable(config: TransformerConfig, train: TrainConfig) -> None:
    """Refuse, with a sentence, a live run too large for a CPU shared by a class."""
    total = count_parameters(config).total
    if total > limits.MAX_TRAIN_PARAMETERS:
        raise ValueError(_("This model has {n} parameters; live training here is limited to {most}. Make it "
                           "narrower or shallower.", n=grouped(total), most=grouped(limits.MAX_TRAIN_PARAMETERS)))
    if config.d_model > limits.MAX_TRAIN_D_MODEL:
        raise ValueError(_("A width of {d} is beyond the {most} trained live here.", d=config.d_model,
                           most=limits.MAX_TRAIN_D_MODEL))
    if config.n_layers > limits.MAX_TRAIN_LAYERS:
        raise ValueError(_("{n} blocks are beyond the {most} trained live here.", n=config.n_layers,
                           most=limits.MAX_TRAIN_LAYERS))
    if config.context_length > limits.MAX_TRAIN_CONTEXT:
        raise ValueError(_("A context of {n} tokens is beyond the {most} trained live here.",
                           n=config.context_length, most=limits.MAX_TRAIN_CONTEXT))
    if train.max_seconds is not None and train.max_seconds > limits.MAX_TRAIN_SECONDS:
        raise ValueError(_("A live run may last at most {most} seconds.", most=limits.MAX_TRAIN_SECONDS))


def learning_rate(train: TrainConfig, step: int, progress: float) -> float:
    """Linear warm-up over the first steps, then lr_min + (lr_max - lr_min)(1 + cos(pi p)) / 2."""
    if step < train.warmup_steps:
        return train.learning_rate * (step + 1) / train.warmup_steps
    p = min(max(progress, 0.0), 1.0)
    return train.min_learning_rate + (train.learning_rate - train.min_learning_rate) * 0.5 * (1 + math.cos(math.pi * p))


def mixed_precision(precision: str) -> bool:
    """Whether a run multiplies its matrices in bfloat16 (autocast); weights, optimiser and attention stay float32.

    "auto" says yes on a CPU with AMX tiles, which multiply bfloat16 several times faster than
    float32; elsewhere bfloat16 is emulated and slower than float32.
    """
    if precision == "auto":
        return torch.backends.mkldnn.is_available() and torch.cpu._is_amx_tile_supported()
    return precision == "bfloat16"


_ID_SENTENCES = {   # token_tensor's `what` -> its sentences (one long sequence; inside the vocabulary)
    "training": (N_("The training ids must be one long sequence."),
                 N_("The training ids use tokens outside the model's vocabulary of {n}.")),
    "held-out": (N_("The held-out ids must be one long sequence."),
                 N_("The held-out ids use tokens outside the model's vocabulary of {n}.")),
}


def token_tensor(ids: Sequence[int] | np.ndarray, vocab_size: int, what: str) -> torch.Tensor:
    """A copy of the ids (shared arrays stay read-only) in the smallest type that holds the
    vocabulary: uint8 for characters, so a training keeps 4 MB of corpus, not 35."""
    array = np.asarray(ids)
    if array.ndim != 1:
        raise ValueError(_(_ID_SENTENCES[what][0]))
    if array.size and (not np.issubdtype(array.dtype, np.integer) or int(array.min()) < 0
                       or int(array.max()) >= vocab_size):
        raise ValueError(_(_ID_SENTENCES[what][1], n=grouped(vocab_size)))
    return torch.tensor(id_array(array, vocab_size))


def random_windows(ids: torch.Tensor, batch_size: int, T: int, generator: torch.Generator):
    """x = B windows of T ids at random starts, y = the same windows shifted one token on (int64)."""
    starts = torch.randint(ids.numel() - T, (batch_size, 1), generator=generator)
    positions = starts + torch.arange(T + 1)                          # (B, T+1)
    windows = ids[positions].long()
    return windows[:, :-1], windows[:, 1:]


# --- one run -------------------------------------------------------------------------------------

@dataclass
class Progress:
    """What the progress callback hears after each step."""
    step: int
    max_steps: int
    seconds: float
    train_loss: float
    learning_rate: float
    tokens_per_second: float
    held_out_loss: float | None        # set on the steps that evaluated

    @property
    def fraction(self) -> float:
        return self.step / self.max_steps


@dataclass
class TrainResult:
    """The run's whole history: every step's loss, every held-out evaluation, why it ended."""
    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    eval_seconds: list[float] = field(default_factory=list)
    held_out_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    tokens_seen: int = 0
    stopped_by: str = ""               # "steps", "time" or "stop"
    probes: list = field(default_factory=list)   # what `probe` said at each evaluation (e.g. HeadFormation)

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_seen / self.seconds if self.seconds else 0.0

    @property
    def final_held_out_loss(self) -> float | None:
        return self.held_out_loss[-1] if self.held_out_loss else None


@torch.no_grad()
def held_out_loss(model: TransformerLM, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    """Mean cross-entropy (nats per token) on fixed held-out windows."""
    was_training = model.training
    model.train(False)
    losses = [model(x, y)[1].item() for x, y in batches]
    model.train(was_training)
    return float(np.mean(losses))


def _evaluate(model: TransformerLM, batches, result: TrainResult, start: float) -> float:
    loss = held_out_loss(model, batches)
    result.eval_steps.append(result.steps[-1])
    result.eval_seconds.append(time.perf_counter() - start)
    result.held_out_loss.append(loss)
    return loss


class Trainer:
    """The optimiser and the batch sampler of one run; `step(lr)` is one update.

    Weight decay goes to matrices only (embeddings and linear weights), as in nanoGPT and
    GPT-2. AdamW runs fused (one kernel for all parameters) and clips the gradient inside that
    kernel, and windows are gathered with one indexing op: the places a plain loop loses time
    on a CPU. With mixed precision the forward pass runs under bfloat16 autocast.
    """

    def __init__(self, model: TransformerLM, train_ids, config: TrainConfig, compile: bool = False):
        self.model, self.config = model, config
        self.T = model.config.context_length
        self.train_ids = token_tensor(train_ids, model.config.vocab_size, "training")
        if self.train_ids.numel() <= self.T + 1:
            raise ValueError(_("The training text must be longer than the context of {n} tokens.", n=self.T + 1))
        torch.manual_seed(config.seed)
        self.generator = torch.Generator().manual_seed(config.seed)
        self.parameters = list(model.parameters())
        decay = [p for p in self.parameters if p.dim() >= 2]
        no_decay = [p for p in self.parameters if p.dim() < 2]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
            lr=config.learning_rate, betas=(config.beta1, config.beta2), fused=True)
        self.forward = torch.compile(model) if compile else model
        self.mixed_precision = mixed_precision(config.precision)

    def step(self, lr: float) -> tuple[float, int]:
        """One update at learning rate `lr`; returns (training loss, tokens read)."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        x, y = random_windows(self.train_ids, self.config.batch_size, self.T, self.generator)
        self.model.train()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.mixed_precision):
            _, loss = self.forward(x, y)
        loss.backward()
        norm = torch.nn.utils.get_total_norm([p.grad for p in self.parameters if p.grad is not None])
        # Clip to norm grad_clip inside the fused AdamW kernel, which divides each gradient by
        # grad_scale (the hook torch.amp.GradScaler uses): g <- g / max(1, |g| / grad_clip),
        # one pass over the gradients fewer than clip_grad_norm_.
        self.optimizer.grad_scale = torch.clamp(norm / self.config.grad_clip, min=1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.item(), x.numel()


def train(model: TransformerLM, train_ids, held_out_ids, config: TrainConfig, *,
          stop: threading.Event | None = None,
          on_progress: Callable[[Progress], None] | None = None,
          probe: Callable[[TransformerLM, int], object] | None = None,
          on_probe: Callable[[object], None] | None = None,
          compile: bool = False) -> TrainResult:
    """Train `model` in place on `train_ids`, scoring `held_out_ids` every `eval_every` steps.

    Ends when the step budget or the time budget runs out, or when `stop` is set. With a `probe`,
    probe(model, step) also runs at each evaluation, the last one included (watch heads form:
    engine.interpret.interventions.head_formation); its answers go to result.probes and, as they come, to
    `on_probe`.
    """
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    T = model.config.context_length
    held_out_ids = token_tensor(held_out_ids, model.config.vocab_size, "held-out")
    if held_out_ids.numel() <= T + 1:
        raise ValueError(_("The held-out text must be longer than the context of {n} tokens.", n=T + 1))
    trainer = Trainer(model, train_ids, config, compile=compile)
    eval_generator = torch.Generator().manual_seed(10_000 + config.seed)
    eval_batches = [random_windows(held_out_ids, config.batch_size, T, eval_generator)
                    for _ in range(config.eval_batches)]

    result = TrainResult()
    start = time.perf_counter()
    for step in range(1, config.max_steps + 1):
        elapsed = time.perf_counter() - start
        if stop is not None and stop.is_set():
            result.stopped_by = "stop"
            break
        if config.max_seconds is not None and elapsed >= config.max_seconds:
            result.stopped_by = "time"
            break
        progress = step / config.max_steps
        if config.max_seconds:
            progress = max(progress, elapsed / config.max_seconds)
        lr = learning_rate(config, step - 1, progress)
        loss, tokens = trainer.step(lr)
        result.steps.append(step)
        result.train_loss.append(loss)
        result.tokens_seen += tokens
        evaluated = None
        if step % config.eval_every == 0 or step == config.max_steps:
            evaluated = _evaluate(model, eval_batches, result, start)
            if probe is not None:
                result.probes.append(probe(model, step))
                if on_probe is not None:
                    on_probe(result.probes[-1])
        result.seconds = time.perf_counter() - start
        if on_progress is not None:
            on_progress(Progress(step, config.max_steps, result.seconds, result.train_loss[-1], lr,
                                 result.tokens_per_second, evaluated))
    else:
        result.stopped_by = "steps"
    if result.steps and (not result.eval_steps or result.eval_steps[-1] != result.steps[-1]):
        _evaluate(model, eval_batches, result, start)      # every run ends with a held-out loss
        if probe is not None:                              # and a probe of the model it ends with
            result.probes.append(probe(model, result.steps[-1]))
            if on_probe is not None:
                on_probe(result.probes[-1])
    result.seconds = time.perf_counter() - start
    model.train(False)
    return result


# --- checkpoints: safetensors for the numbers, JSON for everything else ---------------------------

def save_checkpoint(model: TransformerLM, path: str | Path, metadata: dict | None = None) -> tuple[Path, Path]:
    """Write <path>.safetensors (the weights) and <path>.json (config and notes). Never pickle."""
    from safetensors.torch import save_file

    path = Path(path)
    weights_path, json_path = path.with_suffix(".safetensors"), path.with_suffix(".json")
    state = {name: tensor.detach().contiguous().clone() for name, tensor in model.state_dict().items()
             if not (model.config.tied_head and name == "lm_head.weight")}   # tied: stored once
    save_file(state, str(weights_path), metadata={"format": CHECKPOINT_FORMAT})
    json_path.write_text(json.dumps({"format": CHECKPOINT_FORMAT, "config": model.config.to_dict(),
                                     "metadata": metadata or {}}, indent=2, ensure_ascii=False) + "\n")
    return weights_path, json_path


def load_checkpoint(path: str | Path) -> tuple[TransformerLM, dict]:
    """The model saved by `save_checkpoint` and its metadata; a damaged file raises ValueError."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = Path(path)
    weights_path, json_path = path.with_suffix(".safetensors"), path.with_suffix(".json")
    for file in (weights_path, json_path):
        if not file.is_file():
            raise ValueError(_("The checkpoint file {file} is missing.", file=file.name))
        if file.stat().st_size > limits.MAX_CHECKPOINT_BYTES:
            raise ValueError(_("The checkpoint file {file} is larger than {most} bytes.", file=file.name,
                               most=grouped(limits.MAX_CHECKPOINT_BYTES)))
    try:
        described = json.loads(json_path.read_text(encoding="utf-8"))
        if described.get("format") != CHECKPOINT_FORMAT:
            raise ValueError
        config = TransformerConfig.from_dict(described["config"])
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise ValueError(_("The checkpoint description {file} is damaged or not one of this app's.",
                           file=json_path.name)) from None
    try:
        state = load_file(str(weights_path))
    except (SafetensorError, OSError, ValueError):
        raise ValueError(_("The checkpoint weights {file} are damaged or not a safetensors file.",
                           file=weights_path.name)) from None
    model = TransformerLM(config)
    expected = {name for name in model.state_dict() if not (config.tied_head and name == "lm_head.weight")}
    if set(state) != expected:
        raise ValueError(_("The checkpoint weights {file} do not match its configuration.", file=weights_path.name))
    try:
        model.load_state_dict(state, strict=False)
    except RuntimeError:
        raise ValueError(_("The checkpoint weights {file} have the wrong shapes for its configuration.",
                           file=weights_path.name)) from None
    return model.train(False), described.get("metadata", {})
