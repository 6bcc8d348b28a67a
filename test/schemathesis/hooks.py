# A refusal that depends on the stored data rather than on the request's shape is right even for a request the
# document allows: no schema can say which ids, cursors and chapters exist. positive_data_acceptance is told to
# accept 400 and 422 (schemathesis.toml), and this check then fails every such answer to schema-valid data except
# these documented ones, recognised by their problem code and, for validation errors, by every field's message.
import re

import schemathesis

DATA_DEPENDENT_MESSAGES = re.compile(
    "|".join(
        [
            r"is not a chapter of this project$",  # from, until, as_of, chapter: a chapter id the project lacks
            r"^must be a later chapter than from ",  # until's chapter comes before from's
            r"is not an entity of this project$",  # entity_id of another project or deleted
            r"^required for a new entity: no entity of this project is named ",  # a proposal's name is new: type needed
            r"^\"[^\"]*\" names \d+ entities: ",  # a proposal's name is ambiguous
            r"^.* is a \w+, not a \w+$",  # a proposal's type differs from the entity's
            r"^only for a new entity; ",  # aliases proposed for an entity that exists
            r"^must hold at least one fact about ",  # a proposal about an entity that exists, without facts
            r"^changes nothing: ",  # a retcon giving a fact's own text, from, until and status
            r"^is required for the openai-compatible provider$",  # X-LLM-Model with openai-compatible
        ]
    )
)


def _is_data_dependent(response) -> bool:
    try:
        problem = response.json()
    except ValueError:
        return False
    code = problem.get("code")
    if response.status_code == 422:
        return code == "idempotency_key_reused"  # an Idempotency-Key drawn again, with another body
    if code == "invalid_cursor":
        return True  # a starting_after that is not an item of the list
    errors = problem.get("errors") or []
    return code == "validation_error" and len(errors) > 0 and all(DATA_DEPENDENT_MESSAGES.search(e.get("message", "")) for e in errors)


@schemathesis.check
def positive_data_refused_only_for_data(ctx, response, case):
    """Schema-valid data answered 400 or 422 only when the refusal is a documented one that depends on stored data."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code not in (400, 422):
        return None
    if not _is_data_dependent(response):
        raise AssertionError(f"Valid data was refused with {response.status_code} for a reason that is not about stored data:\n{response.text[:500]}")
    return None
