from pathlib import Path

import pytest

WEIGHTS = Path(__file__).resolve().parent.parent / "model" / "weights"


def trained(name: str) -> bool:
    return (WEIGHTS / f"{name}.safetensors").exists()


@pytest.fixture(scope="session")
def random_runner():
    """Load a model with seed-0 random weights (architecture tests need no training)."""
    import model

    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = model.load(name, device="cpu", random_weights=True)
        return cache[name]

    return get


# -- tiny Hugging Face models (tests/test_hf.py, tests/test_messages.py) --------------------------------
HF_CORPUS = [
    "The cat sat on the mat.",
    "The dog bit the man.",
    "A bird sings in the morning light.",
    "猫坐在垫子上。",
    "Emoji 😀 and café are fine.",
    "the mat sat on the cat",
] * 20


def _byte_bpe(transformers):
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(HF_CORPUS, vocab_size=400, min_frequency=1, special_tokens=["<|endoftext|>"])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """{"gpt2" | "llama" | "bert" | "t5": folder}: tiny random Hugging Face models (2 layers) saved
    with tokenizers trained here (byte-level BPE, WordPiece, SentencePiece unigram); no network.
    Skips the test when transformers is not installed (pip install -r requirements-hf.txt)."""
    transformers = pytest.importorskip("transformers")
    import torch
    from tokenizers import BertWordPieceTokenizer, SentencePieceUnigramTokenizer
    from tokenizers.processors import TemplateProcessing

    root = tmp_path_factory.mktemp("hf_tiny")
    torch.manual_seed(0)
    folders = {}

    def save(name, tok, module):
        folders[name] = str(root / name)
        tok.save_pretrained(folders[name])
        module.eval().save_pretrained(folders[name])

    tok = _byte_bpe(transformers)
    save(
        "gpt2",
        tok,
        transformers.GPT2LMHeadModel(
            transformers.GPT2Config(
                n_layer=2, n_head=2, n_embd=32, vocab_size=len(tok), n_positions=64, bos_token_id=0, eos_token_id=0
            )
        ),
    )
    save(
        "llama",
        tok,
        transformers.LlamaForCausalLM(
            transformers.LlamaConfig(
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                hidden_size=32,
                intermediate_size=64,
                vocab_size=len(tok),
                max_position_embeddings=64,
                bos_token_id=0,
                eos_token_id=0,
                pad_token_id=0,
            )
        ),
    )
    wp = BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(HF_CORPUS, vocab_size=300, min_frequency=1)
    tok = transformers.BertTokenizerFast(tokenizer_object=wp._tokenizer)
    save(
        "bert",
        tok,
        transformers.BertForMaskedLM(
            transformers.BertConfig(
                num_hidden_layers=2,
                num_attention_heads=2,
                hidden_size=32,
                intermediate_size=64,
                vocab_size=len(tok),
                max_position_embeddings=64,
            )
        ),
    )
    sp = SentencePieceUnigramTokenizer()
    sp.train_from_iterator(HF_CORPUS, vocab_size=200, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
    sp._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    # model_max_length: T5 has no position limit of its own; a short one keeps the random model's
    # endless greedy output (no </s>) short
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=sp._tokenizer, eos_token="</s>", pad_token="<pad>", unk_token="<unk>", model_max_length=24
    )
    save(
        "t5",
        tok,
        transformers.T5ForConditionalGeneration(
            transformers.T5Config(
                num_layers=2,
                num_heads=2,
                d_model=32,
                d_kv=16,
                d_ff=64,
                vocab_size=len(tok),
                decoder_start_token_id=0,
                pad_token_id=0,
                eos_token_id=1,
            )
        ),
    )
    return folders


@pytest.fixture(scope="session", autouse=True)
def apptest_setup():
    """Two changes to AppTest itself, none to the app:

    - One ScriptCache for the module: AppTest makes a new one on every run, so it re-parses
      app.py and the page (and rewrites their AST for magic) each time, most of a run's time.
      The files do not change while the tests run.
    - The app as a server runs it once st.navigation has been called: AppTest forgets that on
      every run, and because a folder named pages/ sits beside app.py, Streamlit's older
      multipage mode then sends each rerun straight to the page file, around app.py (and
      ui.context.current() then leaves that mode and reruns, which AppTest undoes on its next
      run, so the sidebar's widgets would lose their values between runs). A server leaves the
      mode once for good; AppTest resets it on every run, so this stays.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    class NavigationSeen(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False  # as after st.navigation's first call
            super().__init__(*args, **kwargs)

    shared = ScriptCache()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app_test, "ScriptCache", lambda: shared)
        mp.setattr(local_script_runner, "ScriptCache", lambda: shared)
        mp.setattr(app_test, "PagesManager", NavigationSeen)
        yield
        PagesManager.uses_pages_directory = None
