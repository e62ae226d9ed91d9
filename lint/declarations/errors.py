"""The one error the declaration layer raises: a refused or unreadable file.

A declaration error is a usage error (exit 2, SEMANTICS.md §17.8), never a
finding, and it always points at a file, a line and, when there is one, the
field path inside the file.
"""

from __future__ import annotations


class DeclarationError(Exception):
    """A declaration file that cannot be read or that declares something the
    sandbox host would refuse.

    ``path`` is the field path inside the file (for example
    ``sandboxes[1].egress.ciliumNarrowing.ports``), or ``""`` when the
    problem concerns the file as a whole. ``line`` is 1-based. ``excerpt`` is
    the text of that line when it is known, so callers can quote it.
    ``error_class`` is the reference's error class when the refusal came from
    the translation (SEMANTICS.md §2.1), and None otherwise.
    """

    def __init__(
        self,
        *,
        path: str,
        file: str,
        line: int,
        message: str,
        error_class: str | None = None,
        excerpt: str | None = None,
    ) -> None:
        self.path = path
        self.file = file
        self.line = line
        self.message = message
        self.error_class = error_class
        self.excerpt = excerpt
        super().__init__(self._headline())

    def _headline(self) -> str:
        where = f"{self.file}:{self.line}"
        if self.path:
            return f"{where}: {self.path}: {self.message}"
        return f"{where}: {self.message}"

    def __str__(self) -> str:
        return self._headline()

    def at_path(self, path: str) -> DeclarationError:
        """The same error, attributed to another field path."""
        return DeclarationError(
            path=path,
            file=self.file,
            line=self.line,
            message=self.message,
            error_class=self.error_class,
            excerpt=self.excerpt,
        )

    def report(self) -> str:
        """The headline followed by the offending source line, when known."""
        if self.excerpt is None:
            return self._headline()
        return f"{self._headline()}\n  {self.line} | {self.excerpt}"
