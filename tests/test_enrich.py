"""Tests of helpers.parsing.enrich: schema validation, the retry, the disk cache, and metadata on Documents.

The LLM here is a fake (`FakeLLM`): it replays canned replies, so the tests are instant and exact. The real
local model is exercised by notebook 01.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_index.core import Document
from llama_index.core.schema import MetadataMode

from helpers.config import Settings
from helpers.corpus import Evidence, Question
from helpers.lab.enrichment import email_subset, embed_only
from helpers.llm import Completion, LLMError
from helpers.parsing.enrich import (
    FIELDS,
    SCHEMA,
    EmailMetadata,
    Enricher,
    Enrichment,
    add_metadata,
    ask_for_metadata,
    flat_fields,
    validate_json,
)

GOOD = {
    "summary": "ADS 530 section B moves to QEB 240 from January 19.",
    "topics": ["room change", "ADS 530"],
    "action_items": ["Go to QEB 240 from Tuesday, January 19"],
    "urgency": "high",
    "people_mentioned": ["Dr. Minji Park"],
}


class FakeLLM:
    """A fake LLM (no model): returns the given replies in turn and records the messages it was sent."""

    def __init__(self, *replies: str, name: str = "fake-model", error: bool = False) -> None:
        self.replies, self.name, self.error = list(replies), name, error
        self.calls: list[list[dict[str, str]]] = []

    def chat_json(self, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Completion:
        self.calls.append(messages)
        if self.error:
            raise LLMError("the endpoint fake failed: APIConnectionError")
        return Completion(self.replies.pop(0), 10, 10, 0.01)


def test_schema_is_what_llama_cpp_needs() -> None:
    assert set(SCHEMA["required"]) == set(FIELDS)
    assert FIELDS == ("summary", "topics", "action_items", "urgency", "people_mentioned")
    assert SCHEMA["properties"]["urgency"]["enum"] == ["low", "medium", "high"]
    assert SCHEMA["properties"]["topics"]["maxItems"] == 3  # limits keep a grammar-bound reply short


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"summary": "x", "topics": [', "invalid JSON"),  # cut off by the token limit
        (json.dumps({**GOOD, "urgency": "urgent"}), "urgency"),  # not one of the three levels
        (json.dumps({k: v for k, v in GOOD.items() if k != "topics"}), "topics: Field required"),
        (json.dumps({**GOOD, "topics": ["a", "b", "c", "d"]}), "topics"),  # over the 3 allowed
        ("Sure! Here is the JSON you asked for.", "invalid JSON (Expecting value at line 1, column 1)"),
        ("[1, 2]", "reply: Input should be a valid dictionary"),
    ],
)
def test_validate_reply_rejects_bad_json_with_a_reason(reply: str, reason: str) -> None:
    metadata, error = validate_json(reply, EmailMetadata)
    assert metadata is None and reason in error


def test_validate_reply_accepts_good_json() -> None:
    metadata, error = validate_json(json.dumps(GOOD), EmailMetadata)
    assert error == "" and metadata is not None and metadata.urgency == "high"
    # A raw line break inside a string (llama.cpp's grammar lets one through) is read, then squeezed away.
    metadata, error = validate_json(json.dumps(GOOD).replace("QEB 240", "QEB\n240"), EmailMetadata)
    assert metadata is not None and "QEB\n240" in metadata.summary
    assert flat_fields(metadata)["summary"] == GOOD["summary"]


def test_one_retry_shows_the_model_its_error() -> None:
    llm = FakeLLM('{"summary": "cut off', json.dumps(GOOD))
    result = ask_for_metadata(llm, "From: a@x.edu\n\nRoom change.")
    assert result.ok and result.metadata is not None and result.metadata.topics == GOOD["topics"]
    assert len(llm.calls) == 2
    retry = llm.calls[1]
    assert retry[-2] == {"role": "assistant", "content": '{"summary": "cut off'}
    assert "not valid" in retry[-1]["content"] and "invalid JSON" in retry[-1]["content"]


def test_two_bad_replies_give_an_error_result_not_an_exception() -> None:
    result = ask_for_metadata(FakeLLM("nope", "still nope"), "text")
    assert not result.ok and result.error.startswith("no valid JSON after one retry: invalid JSON")


def enricher_settings(settings: Settings) -> Settings:
    """The test settings with the cache in the temporary folder too."""
    return settings.replace(cache_dir=settings.paths.data_dir / "cache")


def test_cache_hit_on_second_call(tmp_settings: Settings) -> None:
    llm = FakeLLM(json.dumps(GOOD))  # one reply only: a second model call would fail
    enricher = Enricher(llm, enricher_settings(tmp_settings))
    first, second = enricher.enrich("the e-mail"), enricher.enrich("the e-mail")
    assert not first.cached and second.cached and second.metadata == first.metadata
    assert len(llm.calls) == 1 and enricher.stats == {"asked": 1, "cached": 1}
    # The key holds the model name: another model is asked again.
    other = Enricher(FakeLLM(json.dumps(GOOD), name="other-model"), enricher_settings(tmp_settings))
    assert enricher.key("the e-mail") != other.key("the e-mail") and not other.enrich("the e-mail").cached
    # A failed endpoint is reported, and not cached.
    broken = Enricher(FakeLLM(error=True), enricher_settings(tmp_settings))
    assert "APIConnectionError" in broken.enrich("a new e-mail").error
    assert broken.stats == {"asked": 0, "cached": 0}


def test_enricher_refuses_an_llm_without_json_mode(tmp_settings: Settings) -> None:
    with pytest.raises(TypeError, match="cache=False"):
        Enricher(object(), tmp_settings)  # type: ignore[arg-type]


def test_add_metadata_flat_and_hidden_from_the_llm() -> None:
    doc = Document(text="Room change.", metadata={"source": "emails/a.eml", "title": "Room"})
    metadata, _ = validate_json(json.dumps(GOOD), EmailMetadata)
    enriched = add_metadata(doc, Enrichment(metadata))
    assert enriched.metadata["topics"] == "room change; ADS 530"
    assert all(type(enriched.metadata[key]) is str for key in FIELDS)
    assert "urgency: high" in enriched.get_content(MetadataMode.EMBED)
    assert "urgency" not in enriched.get_content(MetadataMode.LLM)
    assert "topics" not in doc.metadata  # the original is untouched
    failed = add_metadata(doc, Enrichment(None, "no valid JSON"))
    assert failed.metadata["enrichment_error"] == "no valid JSON"
    assert "no valid JSON" not in failed.get_content(MetadataMode.EMBED)


def test_embed_only_chooses_the_fields_the_embedder_reads() -> None:
    metadata, _ = validate_json(json.dumps(GOOD), EmailMetadata)
    doc = add_metadata(Document(text="Body.", metadata={"source": "a.eml"}), Enrichment(metadata))
    none, some = embed_only([doc], ()), embed_only([doc], ("summary", "topics"))
    assert "QEB 240" not in none[0].get_content(MetadataMode.EMBED)
    text = some[0].get_content(MetadataMode.EMBED)
    assert "QEB 240" in text and "room change" in text and "urgency" not in text


def test_email_subset_in_ci_keeps_evidence_and_thread_siblings(tmp_settings: Settings) -> None:
    def email(name: str, thread: str) -> Document:
        return Document(text=name, metadata={"source": f"emails/{name}.eml", "thread": thread})

    docs = [email("a", "t1"), email("a-reply", "t1"), email("b", "t2"), email("c", "t3"), email("d", "t4")]
    questions = [Question("e1", "?", "x", "email", "dev", (Evidence("emails/a.eml", "a"),))]
    full_docs, full_questions = email_subset(docs, questions, tmp_settings.replace(profile="full"))
    assert (len(full_docs), len(full_questions)) == (5, 1)
    ci_docs, _ = email_subset(docs, questions, tmp_settings.replace(profile="ci"), n_distractors=2)
    sources = [d.metadata["source"] for d in ci_docs]
    assert len(sources) == 3 and sources[:2] == ["emails/a.eml", "emails/a-reply.eml"]
