"""Every input limit in the app, one named constant each.

Pages may also use these to bound their widgets, but the engine enforces them: a value
beyond a limit raises ValueError with a sentence, whatever the widget allowed.
"""

# --- attention by hand (engine.attention) ---------------------------------------------
MAX_TOKENS = 64            # rows of X (tokens in a hand-made sentence)
MAX_DIM = 64               # columns of X, width of W_q / W_k / W_v
MAX_ABS_VALUE = 1e6        # any one number typed into a matrix
MAX_WINDOW = 16            # k of the window average c_t = mean(x_{t-k} .. x_{t+k})
MAX_HEADS = 16             # h in the multi-head arithmetic
MAX_TOKEN_NAME_CHARS = 24  # a token label typed by a student
MAX_MATRIX_TEXT_CHARS = 20_000  # the text of one typed matrix
MAX_SENTENCE_CHARS = 400   # a sentence typed on the context page

# --- text: corpus, tokenizers, n-grams (issue 3) ----------------------------------------

# --- embeddings (issue 4) ---------------------------------------------------------------
VOCAB_SIZE_CHOICES = (10_000, 50_000, 400_000)  # the vocabulary-size control: most frequent words searched
MIN_VOCAB_SIZE = 1_000        # fewer words than this and most analogies have no answer at all
MAX_WORD_CHARS = 40           # one word typed by a student (GloVe's longest useful words are shorter)
MAX_NEIGHBOURS = 50           # k in "the k nearest words"
MAX_SUM_TERMS = 10            # words in a composed vector sum such as paris - france + italy
MAX_EXPRESSION_CHARS = 300    # the text of one composed sum
MAX_MAP_WORDS = 30            # points on the 2-D map
MIN_MAP_WORDS = 3             # a 2-D projection needs at least three distinct words
MAX_OFFSET_PAIRS = 10         # (a, b) pairs whose offsets b - a are compared
MAX_SENSES = 4                # sense anchor words for one homonym
MAX_SENTENCE_CHARS = 300      # a sentence around a homonym
CONTEXT_SKIP_MOST_FREQUENT = 100  # the, of, and, ...: left out of a sentence's context average

# --- the transformer: model, training, generation (issue 5) -----------------------------

# --- the pretrained model and its heads (issue 6) ---------------------------------------

# --- beyond words: patches, frames, residues (issue 7) ----------------------------------

# --- classroom: sessions and load (issue 8) ---------------------------------------------
