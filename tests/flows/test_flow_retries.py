"""Which failures the flows retry: transport and service only."""


def test_flows_retry_only_what_a_later_attempt_can_fix():
    from prefect.states import Failed

    from flows.common import IncompleteYear, transient
    from kgbuild.errors import Busy, InputError, IntegrityError, SourceError

    def retried(exc):
        return transient(None, None, Failed(data=exc))

    assert retried(IncompleteYear("2019"))
    assert retried(SourceError("E-utilities did not answer"))
    assert retried(Busy("warehouse held by another build"))
    assert retried(ConnectionResetError())
    assert not retried(TypeError("a bug"))
    assert not retried(ValueError("a bug"))
    assert not retried(InputError("bad path"))
    assert not retried(IntegrityError("records lost"))
