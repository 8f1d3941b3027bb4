"""Attention: which words a word looks at, and how much.

- mechanism: attention by hand in numpy (scores, scaling, softmax, masks, Q/K/V, multi-head, costs),
  the chapter's worked example, the fixed window it replaces.
- readings: what the attention pages say about a row of weights (ties, the weight on itself, sharpness,
  the Context page's sentence), for both front ends.
- examples: what the attention pages open with and offer (the Context page's sentences, its window range).
- learning: gradient descent on W_Q and W_K with exact gradients.
- typed_matrices: matrices typed as text, one row per line.
- code: "show the code": Python, R and Julia that reproduce the calculator's numbers; the Multi-head page's
  numpy program.
"""
