"""Structured output: the real model under a schema grammar, and every failure path."""

from __future__ import annotations

from typing import Annotated, Literal, Union

import pytest
from pydantic import BaseModel, Field, field_validator

from edgevox.grammars import StructuredOutputInvalid
from edgevox.grammars.structured import complete_structured, validate_document
from edgevox.llm.types import Completion


class Booking(BaseModel):
    city: str
    nights: int = Field(ge=1, le=30)
    breakfast: bool


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"], "additionalProperties": False}


@pytest.mark.model
def test_pydantic_reply_on_real_model(qwen_backend):
    c = qwen_backend.complete(
        [{"role": "user", "content": "Book 3 nights in Lisbon with breakfast. Reply as JSON."}],
        response_schema=Booking, max_tokens=60, temperature=0)
    assert isinstance(c.parsed, Booking)
    assert c.parsed.nights == 3 and c.parsed.city.lower().startswith("lisbo")
    assert Booking.model_validate_json(c.text) == c.parsed  # the raw text is kept verbatim


@pytest.mark.model
def test_regex_mode_on_real_model(qwen_backend):
    c = qwen_backend.complete([{"role": "user", "content": "Write the number forty-two in digits."}],
                              response_regex=r"[0-9]{1,4}", max_tokens=8, temperature=0)
    assert c.parsed.group(0) == c.text == "42"


def test_not_json():
    with pytest.raises(StructuredOutputInvalid) as err:
        validate_document("sure! here it is", SCHEMA, None)
    assert err.value.pointer == "" and err.value.raw_text == "sure! here it is"
    assert "not JSON" in err.value.message and err.value.schema is SCHEMA


def test_schema_violation_has_pointer():
    with pytest.raises(StructuredOutputInvalid) as err:
        validate_document('{"name": "Ada", "age": "old"}', SCHEMA, None)
    assert err.value.pointer == "/age" and "integer" in err.value.message


def test_missing_required():
    with pytest.raises(StructuredOutputInvalid, match="'age' is a required property"):
        validate_document('{"name": "Ada"}', SCHEMA, None)


def test_pydantic_validator_failure_has_pointer():
    class Even(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def even(cls, v: int) -> int:
            if v % 2:
                raise ValueError("must be even")
            return v

    from edgevox.grammars.structured import schema_of

    schema, model = schema_of(Even)
    with pytest.raises(StructuredOutputInvalid) as err:
        validate_document('{"n": 3}', schema, model)
    assert err.value.pointer == "/n"


def test_root_must_be_object_union_or_scalar():
    with pytest.raises(ValueError, match="a oneOf/anyOf union or a scalar"):
        complete_structured(object(), [], response_schema={"type": "array"})


class Light(BaseModel):
    kind: Literal["light"]
    room: str
    on: bool


class Timer(BaseModel):
    kind: Literal["timer"]
    minutes: int


LIGHT_OR_TIMER = Annotated[Union[Light, Timer], Field(discriminator="kind")]  # noqa: UP007
ACT_OR_ANSWER = {"oneOf": [
    {"type": "object", "properties": {"tool": {"const": "set_light"}, "room": {"type": "string"}},
     "required": ["tool", "room"], "additionalProperties": False},
    {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
     "additionalProperties": False}]}


@pytest.mark.model
def test_union_roots_on_real_model(qwen_backend):
    """oneOf of object branches: the reply is the branch that matched (a discriminated
    union gives that branch's class); scalar roots work too."""
    c = qwen_backend.complete([{"role": "user", "content": "Set a timer for 5 minutes. Reply as JSON."}],
                              response_schema=LIGHT_OR_TIMER, max_tokens=40, temperature=0)
    assert isinstance(c.parsed, (Light, Timer)) and c.info["schema_branch"] == (isinstance(c.parsed, Timer))
    for prompt in ("Turn on the kitchen light.", "Say hello to me."):
        c = qwen_backend.complete([{"role": "user", "content": prompt + " Reply as JSON."}],
                                  response_schema=ACT_OR_ANSWER, max_tokens=40, temperature=0)
        branch = c.info["schema_branch"]
        assert branch is not None and set(c.parsed) == set(ACT_OR_ANSWER["oneOf"][branch]["required"]), c.text
    c = qwen_backend.complete([{"role": "user", "content": "How many legs has a spider?"}],
                              response_schema={"type": "integer"}, max_tokens=8, temperature=0)
    assert isinstance(c.parsed, int)


def test_union_fallback_reads_the_matching_branch():
    backend = _NoGrammarBackend(['Sure: {"kind": "timer", "minutes": 5}'])
    c = complete_structured(backend, [{"role": "user", "content": "5 min timer"}], response_schema=LIGHT_OR_TIMER)
    assert c.parsed == Timer(kind="timer", minutes=5) and c.info["schema_branch"] == 1
    assert "JSON object" in backend.seen[0][0]["content"]


class _NoGrammarBackend:
    """A backend without grammar support that answers from a script (loop logic only)."""

    supports_grammar = False

    def __init__(self, replies: list[str]):
        self.replies, self.seen = list(replies), []

    def complete(self, messages, tools=None, **kw):
        self.seen.append(messages)
        return Completion(text=self.replies.pop(0))


def test_fallback_prompt_then_validate():
    b = _NoGrammarBackend(['```json\n{"name": "Ada", "age": 36}\n```'])
    c = complete_structured(b, [{"role": "user", "content": "who?"}], response_schema=SCHEMA)
    assert c.parsed == {"name": "Ada", "age": 36}
    assert "JSON schema" in b.seen[0][0]["content"]  # the schema went into the prompt


def test_fallback_not_retried_by_default():
    b = _NoGrammarBackend(['{"name": "Ada"}', '{"name": "Ada", "age": 36}'])
    with pytest.raises(StructuredOutputInvalid):
        complete_structured(b, [], response_schema=SCHEMA)
    assert len(b.seen) == 1


def test_fallback_retry_folds_error_into_prompt():
    b = _NoGrammarBackend(['{"name": "Ada"}', '{"name": "Ada", "age": 36}'])
    c = complete_structured(b, [], response_schema=SCHEMA, retries=1)
    assert c.parsed["age"] == 36 and c.info["structured_attempts"] == 2
    assert "'age' is a required property" in b.seen[1][-1]["content"]
