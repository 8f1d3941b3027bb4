"""The further reading the pages give, each work written once: a title a student can search for, and its address.

A page names its own in its spec (`PageSpec.reading`), in the order it lists them under "Further reading";
`ref.on("section 3.5, positional encoding")` points a student at the part that page is about.
"""
from __future__ import annotations

from typing import NamedTuple


class Reference(NamedTuple):
    title: str
    url: str

    def on(self, part: str) -> "Reference":
        """The same work, with the part a page is about after its title."""
        return Reference(f"{self.title} ({part})", self.url)


# --- the chapter's own sources and courses -----------------------------------------------------------------------
VASWANI_2017 = Reference("Vaswani et al. 2017, Attention is all you need", "https://arxiv.org/abs/1706.03762")
BAHDANAU_2015 = Reference("Bahdanau, Cho, Bengio 2015, Neural machine translation by jointly learning to align "
                          "and translate", "https://arxiv.org/abs/1409.0473")
LIN_2021 = Reference("Lin et al. 2021, A survey of transformers", "https://arxiv.org/abs/2106.04554")
CME_295 = Reference("Stanford CME 295, Transformers and large language models", "https://cme295.stanford.edu/syllabus/")
JURAFSKY_MARTIN_3 = Reference("Jurafsky & Martin, Speech and Language Processing, ch. 3: n-gram language models",
                              "https://web.stanford.edu/~jurafsky/slp3/3.pdf")

# --- tokens and n-grams ------------------------------------------------------------------------------------------
SHANNON_1948 = Reference("Shannon 1948, A mathematical theory of communication",
                         "https://people.math.harvard.edu/~ctm/home/text/others/shannon/entropy/entropy.pdf")
CHEN_GOODMAN_1998 = Reference("Chen & Goodman 1998, An empirical study of smoothing techniques for language modeling",
                              "https://dash.harvard.edu/handle/1/25104739")
HOLTZMAN_2020 = Reference("Holtzman et al. 2020, The curious case of neural text degeneration",
                          "https://arxiv.org/abs/1904.09751")
SENNRICH_2016 = Reference("Sennrich, Haddow, Birch 2016, Neural machine translation of rare words with subword "
                          "units", "https://arxiv.org/abs/1508.07909")
RADFORD_2019 = Reference("Radford et al. 2019, Language models are unsupervised multitask learners (GPT-2)",
                         "https://cdn.openai.com/better-language-models/"
                         "language_models_are_unsupervised_multitask_learners.pdf")

# --- embeddings --------------------------------------------------------------------------------------------------
SANDERSON_EMBEDDINGS = Reference("Sanderson (3Blue1Brown), Transformers, Deep Learning chapter 5: word embeddings "
                                 "from 12:27", "https://www.youtube.com/watch?v=wjZofJX0v4M&t=747s")
PENNINGTON_2014 = Reference("Pennington, Socher and Manning 2014, GloVe: Global vectors for word representation",
                            "https://nlp.stanford.edu/projects/glove/")
MIKOLOV_2013 = Reference("Mikolov et al. 2013, Efficient estimation of word representations in vector space",
                         "https://arxiv.org/abs/1301.3781")
LEVY_GOLDBERG_2014 = Reference("Levy and Goldberg 2014, Linguistic regularities in sparse and explicit word "
                               "representations", "https://aclanthology.org/W14-1618/")
NISSIM_2020 = Reference("Nissim, van Noord and van der Goot 2020, Fair is better than sensational",
                        "https://arxiv.org/abs/1905.09866")

# --- heads and what they do --------------------------------------------------------------------------------------
CLARK_2019 = Reference("Clark et al. 2019, What does BERT look at? An analysis of BERT's attention",
                       "https://arxiv.org/abs/1906.04341")
VOITA_2019 = Reference("Voita et al. 2019, Analyzing multi-head self-attention: specialized heads do the heavy "
                       "lifting", "https://arxiv.org/abs/1905.09418")
GEEKSFORGEEKS_MULTI_HEAD = Reference("GeeksforGeeks, Multi-head attention mechanism",
                                     "https://www.geeksforgeeks.org/nlp/multi-head-attention-mechanism/")
VIG_2019 = Reference("Vig 2019, A multiscale visualization of attention in the transformer (BertViz)",
                     "https://arxiv.org/abs/1906.05714")
OLSSON_2022 = Reference("Olsson et al. 2022, In-context learning and induction heads",
                        "https://transformer-circuits.pub/2022/in-context-learning-and-induction-heads/index.html")
JAIN_WALLACE_2019 = Reference("Jain & Wallace 2019, Attention is not explanation", "https://arxiv.org/abs/1902.10186")
XIAO_2023 = Reference("Xiao et al. 2023, Efficient streaming language models with attention sinks",
                      "https://arxiv.org/abs/2309.17453")
ALLAL_2025 = Reference("Allal et al. 2025, SmolLM2: when smol goes big", "https://arxiv.org/abs/2502.02737")
LOGIT_LENS_2020 = Reference("nostalgebraist 2020, interpreting GPT: the logit lens",
                            "https://www.lesswrong.com/posts/AcKRB8wDpdaN6v6ru/interpreting-gpt-the-logit-lens")
ELHAGE_2021 = Reference("Elhage et al. 2021, A mathematical framework for transformer circuits",
                        "https://transformer-circuits.pub/2021/framework/index.html")
MENG_2022 = Reference("Meng et al. 2022, Locating and editing factual associations in GPT",
                      "https://arxiv.org/abs/2202.05262")
WANG_2022 = Reference("Wang et al. 2022, Interpretability in the wild: a circuit for indirect object identification "
                      "in GPT-2 small", "https://arxiv.org/abs/2211.00593")

# --- position, the block, generation -----------------------------------------------------------------------------
HAVIV_2022 = Reference("Haviv et al. 2022, Transformer language models without positional encodings still learn "
                       "positional information", "https://arxiv.org/abs/2203.16634")
XIONG_2020 = Reference("Xiong et al. 2020, On layer normalization in the transformer architecture",
                       "https://arxiv.org/abs/2002.04745")
NANOGPT = Reference("Karpathy, nanoGPT", "https://github.com/karpathy/nanoGPT")
BROWN_2020 = Reference("Brown et al. 2020, Language models are few-shot learners", "https://arxiv.org/abs/2005.14165")
MAKEMORE = Reference("Karpathy, makemore: one interface for every language model",
                     "https://github.com/karpathy/makemore")

# --- beyond words ------------------------------------------------------------------------------------------------
DOSOVITSKIY_2020 = Reference("Dosovitskiy et al. 2020, An image is worth 16x16 words (ViT)",
                             "https://arxiv.org/abs/2010.11929")
GONG_2021 = Reference("Gong et al. 2021, AST: Audio Spectrogram Transformer", "https://arxiv.org/abs/2104.01778")
RIVES_2021 = Reference("Rives et al. 2021, Biological structure and function emerge from scaling unsupervised "
                       "learning to 250 million protein sequences (ESM)", "https://doi.org/10.1073/pnas.2016239118")
