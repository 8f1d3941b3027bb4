"""Every input limit in the app, one named constant each.

Pages may also use these to bound their widgets, but the engine enforces them: a value
beyond a limit raises ValueError with a sentence, whatever the widget allowed.
"""

# --- text: corpus, tokenizers, n-grams --------------------------------------------------
MAX_USER_TEXT_BYTES = 2_000_000   # a pasted or uploaded text (UTF-8 bytes)
MAX_TOKENIZE_CHARS = 5_000        # text typed on the Tokens page, shown as chips
MAX_BPE_MERGES = 2_000            # merges the BPE trainer may learn live
TOKENS_BPE_MERGES = 1_000         # merges the Tokens page learns from the plays (its slider's top)
TOKENS_BPE_TRAIN_CHARS = 100_000  # ... from this many characters of the training text
MAX_BPE_TRAIN_CHARS = 2_000_000   # text the BPE trainer may read
MAX_NGRAM_ORDER = 6               # n of an n-gram model a student builds
LADDER_MAX_NGRAM_ORDER = 8        # n of the character n-grams the model ladder scores (counted once, off the pages)
LADDER_HELD_OUT_CHARS = 40_000    # held-out characters every model on the ladder is scored on
LADDER_PASSAGES = 10              # ... in this many passages spread evenly over the validation split
MAX_NGRAM_TOKENS = 6_000_000      # token ids an n-gram model may count
MAX_SAMPLE_TOKENS = 2_000         # tokens sampled in one go
MAX_TEMPERATURE = 100.0           # sampling temperature (0 means greedy)
MAX_ADD_K = 100.0                 # k of add-k (Lidstone) smoothing
MAX_TOP_K_VIEW = 50               # rows of a "top next tokens" view
TOKENS_MAX_PROMPT_CHARS = 400     # the context the Tokens page's n-gram predicts after
NGRAM_MAX_PROMPT_CHARS = 200      # the text the N-gram sampler's sample starts with

# --- embeddings -------------------------------------------------------------------------
VOCAB_SIZE_CHOICES = (10_000, 50_000, 400_000)  # the vocabulary-size control: most frequent words searched
MIN_VOCAB_SIZE = 1_000        # fewer words than this and most analogies have no answer at all
MAX_WORD_CHARS = 40           # one word typed by a student (GloVe's longest useful words are shorter)
MAX_NEIGHBOURS = 50           # k in "the k nearest words"
MAX_SUM_TERMS = 10            # words in a composed vector sum such as paris - france + italy
MAX_EXPRESSION_CHARS = 300    # the text of one composed sum
MAX_MAP_WORDS = 30            # points on the 2-D map
MAX_MAP_EXTRA_CHARS = 600     # the text of the map's other words (a, b, c, d ... separated by commas)
MIN_MAP_WORDS = 3             # a 2-D projection needs at least three distinct words
MAX_OFFSET_PAIRS = 10         # (a, b) pairs whose offsets b - a are compared
MAX_SENSES = 4                # sense anchor words for one homonym
MAX_SENTENCE_CHARS = 300      # a sentence around a homonym
CONTEXT_SKIP_MOST_FREQUENT = 100  # the, of, and, ...: left out of a sentence's context average

# --- attention by hand (engine.attention.mechanism) -----------------------------------------------
MAX_TOKENS = 64            # rows of X (tokens in a hand-made sentence)
MAX_DIM = 64               # columns of X, width of W_q / W_k / W_v
MAX_ABS_VALUE = 1e6        # any one number typed into a matrix
MAX_WINDOW = 16            # k of the window average c_t = mean(x_{t-k} .. x_{t+k})
MAX_HEADS = 16             # h in the multi-head arithmetic
MAX_TOKEN_NAME_CHARS = 24  # a token label typed by a student
MAX_MATRIX_TEXT_CHARS = 20_000  # the text of one typed matrix
MAX_CONTEXT_SENTENCE_CHARS = 400  # a sentence typed on the context page
MAX_SHARPNESS = 100.0      # beta, the calculator's multiplier on the scores before softmax
MAX_LEARN_STEPS = 200      # gradient steps of the calculator's "learn W_Q and W_K"
MAX_LEARNING_RATE = 10.0   # ... and their step size

# --- the transformer: model, training, generation ---------------------------------------
MAX_BUILD_PARAMETERS = 200_000_000  # a model built in memory (GPT-2 small fits; GPT-3 is only counted)
MAX_CONTEXT_LENGTH = 2048           # tokens a built model reads at once
MAX_TRAIN_PARAMETERS = 3_000_000    # a model trained live on a shared CPU
MAX_TRAIN_D_MODEL = 256             # width of a live-trained model
MAX_TRAIN_LAYERS = 8                # blocks in a live-trained model
MAX_TRAIN_CONTEXT = 128             # context length of a live-trained model
MAX_TRAIN_BATCH = 64                # sequences per training step
MAX_TRAIN_STEPS = 20_000            # optimiser steps of one run
MAX_TRAIN_SECONDS = 300             # wall-clock budget of one live run
MAX_TRAININGS_PER_MACHINE = 2       # trainings running at once on one machine, all server processes together
MAX_WAITING_TRAININGS = 8           # trainings waiting in line; beyond that a student is asked to retry
# a model pass per head or per patched cell (the Inside page's knock-out and patching: 6-14 s of CPU each on a busy
# server): this many at once on the machine, all processes together; this many more wait per process
MAX_HEAVY_CALLS_PER_MACHINE = 1
MAX_WAITING_HEAVY_CALLS = 4
MAX_SAVED_RUNS = 6                  # runs a student keeps to compare on one chart
MAX_GENERATE_TOKENS = 400           # tokens sampled in one go
MAX_PROMPT_CHARS = 300              # characters of a prompt
GENERATE_MAX_MODELS = 4             # models sampled side by side on the Generate page
GENERATE_MAX_TEMPERATURE = 2.0      # the Generate page's temperature (0 always takes the likeliest)
GENERATE_MAX_TOP_K = 75             # the Generate page's top-k: the plays' 75 characters (0 keeps all)
MAX_CHECKPOINT_BYTES = 64_000_000   # a checkpoint file read from disk
# positional encodings, the tiny vocabulary, the multi-head and position pages
MAX_SENTENCE_WORDS = 12        # words in a sentence typed on the multi-head / position pages
MAX_MULTI_HEAD_SENTENCE_CHARS = 200  # characters of a sentence (and of the shipped model's line) on the multi-head page
MAX_POSITIONS = 256            # rows T of a positional-encoding table drawn or compared
MAX_ENCODING_DIM = 256         # width d of a positional-encoding table
MIN_SINUSOID_BASE = 2.0        # the 10000 in sin(t / 10000^(2i/d)), lowest allowed
MAX_SINUSOID_BASE = 1e6        # ... and highest allowed
MAX_ENCODING_STRENGTH = 10.0   # multiplier on p_t before adding it to x_t
MAX_CHART_CELLS = 5_000        # cells of one drawn table (T x d, T x T): Altair refuses more rows
MAX_DRAWN_POSITIONS = 64       # T and d of the encoding tables drawn on the Position page (64 x 64 < 5000)
MAX_POSITION_SENTENCE_CHARS = 200   # each of the Position page's two sentences
MAX_HEAD_VIEW_CHARS = 32       # characters read by the shipped model on the multi-head page (h T^2 cells drawn)
MAX_COST_TOKENS = 1_000_000    # T in the parameter / FLOP counts (nothing is built)
MAX_COST_WIDTH = 100_000       # d in the parameter / FLOP counts
MAX_COST_HEADS = 1024          # h in the parameter / FLOP counts
MAX_PROJECTION_GAIN = 10.0     # gain of the seeded untrained W_Q, W_K, W_V, W_O

# --- the pretrained model and its heads -------------------------------------------------
PRETRAINED_MAX_TOKENS = 256          # tokens in one pass of SmolLM2 (longer texts are cut, with a note)
PRETRAINED_MAX_TEXT_CHARS = 4_000    # characters of a text typed for SmolLM2
# characters scored for bits per character (the ladder's held-out slice; windows of 256 tokens)
PRETRAINED_MAX_EVAL_CHARS = 20_000
PRETRAINED_MAX_NEW_TOKENS = 64       # tokens SmolLM2 writes in one generate call
PRETRAINED_MAX_TEMPERATURE = 5.0     # sampling temperature for SmolLM2
PRETRAINED_MAX_TOP_K = 50            # candidates shown in a next-token distribution
# a cheaper weight format may draw SmolLM2's samples (engine.pretrained.weight_formats.closeness) when at every
# position of the pages' prompts its next-token distribution at T = 1 is within this total variation distance of
# float32's (half the summed |P - P_float32|: no set of tokens gains or loses more than 0.01 of probability) and
# its most likely token is float32's; every probability a page prints stays float32's
SAMPLING_FORMAT_MAX_TVD = 0.01
# tokens the head viewer reads and draws, in every front end (30 x 9 heatmaps of T x T; engine.chapter.heads)
HEAD_VIEWER_MAX_TOKENS = 40
INDUCTION_MAX_LENGTH = 100           # random tokens repeated twice to find induction heads
# models brought along (PLAYGROUND_MODELS): any Llama-architecture GGUF file
MAX_LOADED_MODELS = 3                # of them held loaded per process beside SmolLM2 (least recently used goes)
MAX_MODEL_PARAMETERS = 1_500_000_000  # parameters of one (float32 weights: 6 GB in the prepared cache)
# causal interventions (engine.interpret.interventions): each costs many passes on a shared CPU
INTERVENTION_MAX_TOKENS = 64         # tokens of one prompt read by the logit lens or a head ablation
FORMATION_PROBE_LENGTH = 32          # random tokens (repeated twice) a training model is probed on
HEAD_EFFECTS_MAX_TOKENS = 24         # tokens of the prompt whose every head is ablated one by one (L x h passes)
PATCHING_MAX_CELLS = 620             # (layers + 1) x positions patched, one run each (SmolLM2: 31 x 20 tokens)
LOGIT_LENS_MAX_TOP_K = 20            # tokens kept per layer and position by the logit lens
TARGET_MAX_CHARS = 40                # a target token typed as text (one token: a few characters)

# --- beyond words: patches, frames, residues --------------------------------------------
MAX_IMAGE_UPLOAD_BYTES = 8_000_000   # an uploaded PNG or JPEG file
# width x height read from the header, checked before decoding (bombs, and big but flat files: a 170 kB PNG of
# 6300 x 6300 took 3.9 s and 455 MB). A PNG is decoded in full (4 bytes a pixel, plus a shrunk copy): a 4K
# screenshot (3840 x 2160) fits, at about 80 MB. A JPEG is decoded at 1/2 to 1/8 scale, just above the kept side.
MAX_IMAGE_PIXELS = 8_500_000
MAX_JPEG_PIXELS = 64_000_000
# ... and each side, and their ratio, from the same header: an 8,000,000 x 1 PNG (31 kB) fits the pixel count but cost
# 2.6 s and +426 MB to decode, and shrunk to 1024 x 1 it leaves no room for a patch of MIN_PATCH_SIZE
MAX_IMAGE_FILE_SIDE = 16_384         # width or height in the file (a 48-megapixel photo is 8,000 x 6,000)
MAX_IMAGE_ASPECT = 20                # longer side / shorter side: a wide panorama is about 10
MAX_IMAGE_SIDE = 1024                # longer side kept after loading; larger pictures are shrunk to it
MIN_PATCH_SIZE = 2                   # side of one square patch, in pixels
MAX_PATCH_SIZE = 128
MAX_PATCH_TOKENS = 1024              # patches (tokens) in one image: 1024^2 = 1 M scores
MAX_TOKEN_FEATURES = 49_152          # numbers per raw token (a 128 x 128 RGB patch)
MAX_PROJECTION_DIM = 256             # d of the fixed random projection
MAX_WAV_BYTES = 5_000_000            # an uploaded WAV file
MAX_AUDIO_SECONDS = 30.0             # duration of a signal or WAV
MIN_SAMPLE_RATE = 4_000              # samples per second
MAX_SAMPLE_RATE = 48_000
MIN_FRAME = 64                       # samples in one spectrogram frame (FFT length)
MAX_FRAME = 4_096
MIN_HOP = 16                         # samples between the starts of two frames
MAX_AUDIO_FRAMES = 1024              # frames (tokens) in one spectrogram
SILENCE_PEAK = 1e-4                  # peak |sample| (full scale 1) below which a recording counts as silent
MAX_RESIDUES = 256                   # amino acids in one protein sequence
MAX_SEQUENCE_TEXT_CHARS = 5_000      # the pasted text, FASTA header included

# --- classroom: sessions and load -------------------------------------------------------
# the Gradio Space's door: any upload (its /gradio_api/upload refuses more, before a file reaches a tab); its heavy
# SmolLM2 questions wait in the engine's line (MAX_HEAVY_CALLS_PER_MACHINE), as the Streamlit pages' do
GRADIO_MAX_UPLOAD_BYTES = max(MAX_IMAGE_UPLOAD_BYTES, MAX_WAV_BYTES)
# an upload leaves the disk when the call that reads it ends (30 uploads left 201 MB in Gradio's temp folder, never
# cleaned); the bytes of the last few stay in memory, so asking again with another slider needs no new upload
GRADIO_KEPT_UPLOADS = 4
# uploads no call read are deleted after this long (Gradio's delete_cache, checked every GRADIO_SWEEP_S), and all of
# them when the server stops
GRADIO_UPLOAD_MAX_AGE_S = 3600
GRADIO_SWEEP_S = 600
# any other request body (an API call's JSON: its longest text box takes MAX_MATRIX_TEXT_CHARS), refused from its
# Content-Length before it is read, or as soon as a body sent without one grows past it
GRADIO_MAX_REQUEST_BYTES = 1_000_000

# --- class mode: predict, vote, reveal (engine.classroom; enforced by the class store) ---
CLASS_MAX_STUDENTS = 1_000           # students who may join one class (a lecture hall: bench.classroom --students 1000)
CLASS_MAX_QUESTIONS = 200            # questions asked in one class
CLASS_MAX_ROUNDS = 4                 # rounds of one question (vote again: peer instruction)
CLASS_MAX_OPEN_PER_SERVER = 200      # classes open at once in one store (one SQLite file or one Redis)
CLASS_OPEN_PER_TEACHER = 3           # open classes one teacher's browser may have started (a class or two a period)
CLASS_OPEN_PER_ADDRESS = 30          # open classes started from one network address (a school's teachers share one)
CLASS_LIFETIME_S = 4 * 3600          # a class ends by itself this long after it started (its record then goes)
CLASS_IDLE_S = 30 * 60               # ... or this long after its teacher's last action (or last look at its screen)
CLASS_TEACHER_TOUCH_S = 60.0         # the teacher's open screen tells the store it is there at most this often
CLASS_ENDED_KEPT_S = 24 * 3600       # an ended class's code alone is remembered this long: joining it says so
CLASS_MAX_TEACHER_DEVICES = 4        # browsers that may teach one class (the one that started it, then teacher links)
CLASS_MAX_ANSWER_CHARS = 120         # one option of a question
CLASS_MAX_PROMPT_CHARS = 300         # the question's text
CLASS_MAX_EXPLANATION_CHARS = 600    # the sentence shown at the reveal
CLASS_MAX_LINK_CHARS = 8_000         # a page link ("attention?x=...") the class follows or a question keeps
CLASS_MAX_OPTIONS = 6                # options of one question
CLASS_MIN_OPTIONS = 2
CLASS_CODE_CHARS = 8                 # a class code: 8 of 32 characters = 40 bits (from `secrets`)
CLASS_MAX_STUDENT_ID_CHARS = 64      # a student's anonymous id
CLASS_JOIN_FAILURES_PER_MINUTE = 20  # wrong codes one browser may type in a minute (guessing codes)
# the generous ceilings per network address (a hall of 1,000 shares one behind NAT; a client that drops its cookie
# to look like many browsers is held here); codes have 40 bits, so guessing at this pace stays hopeless
CLASS_JOIN_FAILURES_PER_ADDRESS_PER_MINUTE = 1_000
CLASS_JOINS_PER_ADDRESS_PER_MINUTE = 1_500    # new students joining from one address in a minute
# a student's page asks the store for news this often (a Streamlit fragment rerun costs about 2 ms of
# server CPU: 300 students at 1.5 s are about 20 % of 2 cores)
CLASS_POLL_S = 1.5
CLASS_VERSION_SHARE_S = 0.2          # the polls of one server process share a class's version read this long
CLASS_TEACHER_POLL_S = 0.5           # the teacher's screen (one session) asks for the histogram this often
# students are told, not polling (ui.class_events): a student's page parks one request on the class's events route
# until the class's version moves; one watcher per server process follows the store and wakes them all
CLASS_EVENTS_PARK_S = 25.0           # a parked request answers 204 (no change) after this long; the page asks again
CLASS_EVENTS_MAX_PARKED = 2_000      # parked requests one server process holds; one more is refused (503, retry)
CLASS_EVENTS_READ_S = 0.25           # SQLite: the watcher reads the versions of the watched classes this often
CLASS_EVENTS_RECHECK_S = 5.0         # Redis: told by pub/sub, and reads the watched classes this often all the same
CLASS_EVENTS_COALESCE_S = 0.05       # Redis: changes told within this long are read once (a room voting at once)
CLASS_EVENTS_WATCH_KEEP_S = 60.0     # a class nobody asked about for this long is no longer watched
CLASS_EVENTS_FAILURES = 3            # requests in a row the page's listener may fail before it falls back to polling
# where the events route cannot be reached (a proxy that blocks it), the student's page polls, at this slower period
CLASS_FALLBACK_POLL_S = 3.0
CLASS_VOTE_BODY_BYTES = 512          # a vote sent by the listener (ui.class_live): {"question", "round", "option"}
# the class view (engine/classroom/view.py): a followed page made once per teacher move, not run once per follower
CLASS_VIEW_MAX_BYTES = 800_000       # one class view as stored (its JSON, UTF-8): charts past it leave their sentence
                                     # (each follower is sent it once per move: Position's 7 charts made 1.46 MB)
CLASS_VIEW_MAX_CHARTS = 16           # charts one view draws as SVG (each a vl-convert run: about 0.05-0.5 s)
CLASS_VIEW_CHART_PX = 400            # px given to a chart that fills its column: scaled to a phone, up to 2x on a
                                     # projector (13 px text reads 11 px on a 390 px phone; at 480 it read 9)
CLASS_REVEAL_CHART_PX = 170          # the reveal's answers chart, bars only: with its labels and counts about a phone's
                                     # column (13 px text reads 13 px at 390 px), scaled up to 2x on wider screens
CLASS_VIEW_MIN_CHART_PX = 560        # a wider fixed-size chart (a heatmap) shrinks to at most this, then scrolls
CLASS_VIEW_TABLE_ROWS = 40           # rows shown of one table in the view (the rest: a line saying how many)

# --- class mode: lessons (engine.chapter.lesson) ---
LESSON_MAX_SCENES = 60               # scenes in one lesson file
LESSON_MAX_BYTES = 64_000            # a lesson file a teacher uploads
LESSON_MAX_DEPTH = 8                 # brackets nested in a lesson file (the app's own files nest 3 deep)

# --- uploads, as the server takes them ---------------------------------------------------
# Streamlit's server.maxUploadSize (.streamlit/config.toml), in MiB: the largest upload limit above, rounded up.
# Its default, 200, let a 190 MB text reach the server (+360 MB each, kept) only for the engine to refuse it.
# Each file_uploader also gets its own limit (ui.page.upload_megabytes), so the browser refuses a bigger file
# before sending it.
MAX_UPLOAD_MEGABYTES = 8
# What one session (a browser tab) may hold in uploads at once, all its uploaders together (ui.door refuses more before
# reading it): 60 uploads of 7 MB into one session were all kept (+402 MB). A student holds a text, a picture and a
# recording at most (2 + 8 + 5 MB); replacing a file frees the old one.
MAX_SESSION_UPLOAD_BYTES = 32_000_000
MAX_SESSION_UPLOADS = 12
# Any other request body the server takes (ui.door): no page posts one; Streamlit's agent API (off) would.
MAX_REQUEST_BODY_BYTES = 64_000
# A page's link as the browser sends it (the query string): Streamlit 1.67 ignores a longer one whole; the page says
# so (ui.door). The calculator's largest matrix (MAX_MATRIX_TEXT_CHARS) fits encoded three times over.
LINK_MAX_CHARS = 512 * 1024
LINK_MAX_VALUES = 1000
# The websocket, both ways (.streamlit/config.toml, in MB): server.maxMessageSize bounds a message the server sends
# (the largest a page sends, measured in tests/test_server_settings.py, is far below it) and, in uvicorn, a message a
# client sends, refused from its frame header before it is read (a 150 MB message peaked at +309 MB under the old
# 200); server.maxWidgetStateSize bounds every widget value a client sends in one run (the largest box takes
# MAX_MATRIX_TEXT_CHARS, at most 80 kB).
MAX_MESSAGE_MEGABYTES = 16
MAX_WIDGET_STATE_MEGABYTES = 1

# --- downloads: a chart as SVG, PNG and CSV (engine/charts/export.py) ---------------------
EXPORT_MAX_ROWS = 50_000             # data rows of one chart drawn on the server (a bigger one gets a sentence)
EXPORT_MAX_PIXELS = 40_000_000       # width x height of the 2x PNG (8,000 x 5,000): larger ones are refused
EXPORT_DEFAULT_WIDTH = 640           # px given to a chart that fills its column in the page ("container")

# --- a page's handout as PDF (engine/charts/handout.py) ------------------------------------------
HANDOUT_MAX_CHARTS = 16              # charts one handout draws (each is a vl-convert run: about 0.1-0.5 s)
HANDOUT_MAX_PAGES = 12               # pages of one handout (the calculator's default view takes two)
HANDOUT_TABLE_ROWS = 30              # rows printed of one table (the rest: a line saying how many)
HANDOUT_CODE_LINES = 80              # lines printed of one code box


def body_refused(size: int | None, limit: int) -> str:
    """The sentence both servers' doors answer a request body over `limit` bytes with (`size` None: it grew past the
    limit while it arrived, no length given up front)."""
    what = f"is {size:,} bytes" if size is not None else "grew past that as it arrived"
    return f"Request refused: a request's body may be at most {limit:,} bytes; this one {what}."
