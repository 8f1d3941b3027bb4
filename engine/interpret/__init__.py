"""Interpreting a trained model (beyond the chapter): what its heads look at and what they do.

- heads: each head's pattern scored and named (previous-token, first-token, self, broad, induction).
- interventions: causal tools: logit lens, heads knocked out, activation patching, the copying probe.
- readings: what those tools found, in numbers and sentences; the Inside page's examples.
"""
