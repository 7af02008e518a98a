"""The classroom: the student version of the notebooks (solutions replaced by stubs, outputs cleared).

    >>> write_student_version("student")   # or: python -m helpers student-version student

What it leaves out: grading (nbgrader does that on this very layout) and self-checking exercises.
"""

from helpers.classroom.student import (
    BEGIN,
    END,
    MARKDOWN_STUB,
    STUB,
    ClassroomError,
    student_notebook,
    student_source,
    write_student_version,
)

__all__ = [
    "BEGIN",
    "END",
    "MARKDOWN_STUB",
    "STUB",
    "ClassroomError",
    "student_notebook",
    "student_source",
    "write_student_version",
]
