"""parse_docstring edge cases."""

from __future__ import annotations

from edgevox.tools import parse_docstring


def test_empty() -> None:
    assert parse_docstring(None).summary == ""
    assert parse_docstring("   ").params == {}


def test_summary_stops_at_section_without_blank_line() -> None:
    d = parse_docstring(
        """Search the web.
        Args:
            query: Words to look for.
            limit: Max results.
        Returns:
            limit: not a parameter description
        """
    )
    assert d.summary == "Search the web."
    assert d.params == {"query": "Words to look for.", "limit": "Max results."}


def test_google_section_ends_at_dedent_and_blank_lines_inside() -> None:
    d = parse_docstring(
        """Do it.

        Args:
            a (int, optional): First.

                Still first.
            b: Second.

        Raises:
            ValueError: if bad.
        """
    )
    assert d.params == {"a": "First. Still first.", "b": "Second."}


def test_rest_fields_and_type_lines() -> None:
    d = parse_docstring(
        """Send mail.

        :param to: Recipient.
        :type to: str
        :param str subject: Subject line.
        :keyword urgent: Flag it.
        :return: message id
        """
    )
    assert d.summary == "Send mail."
    assert d.params == {"to": "Recipient.", "subject": "Subject line.", "urgent": "Flag it."}


def test_numpy_multiple_names_and_next_section() -> None:
    d = parse_docstring(
        """Move.

        Parameters
        ----------
        x, y : float
            Target coordinates.
        speed : float, optional
            Metres per second.

        Returns
        -------
        bool
            Whether it arrived.
        """
    )
    assert d.params == {
        "x": "Target coordinates.",
        "y": "Target coordinates.",
        "speed": "Metres per second.",
    }


def test_plain_docstring_has_no_params() -> None:
    d = parse_docstring("Just a sentence: with a colon.\n\nMore words.")
    assert d.summary == "Just a sentence: with a colon."
    assert d.params == {}
