"""The scheduled keepalive of the event pipeline (every WEBSOCKET_HEARTBEAT_SECONDS).

For each push-channel connection: a heartbeat event appended to its queue and pushed
(keeping the connection within API Gateway's 10-minute idle timeout and the queue
alive), or, if the queue is gone or pushes elsewhere now, the connection closed and
forgotten. Then the SQS wake queues of event queues that no longer exist are deleted.
A Scan is right here: this is a scheduled sweep over every connection, not a request.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from chalicelib.aws.log import logger
from chalicelib.core.errors import ApiError
from chalicelib.delivery import push
from chalicelib.delivery.append import append
from chalicelib.delivery.connections import deliver, forget, heartbeat
from chalicelib.delivery.queues import acknowledge, is_live, load_queues
from chalicelib.delivery.wake import delete_wake_queue, list_wake_queues
from chalicelib.models.events import EventQueue, WsConnection

WORKERS = 16


@dataclass
class KeepaliveResult:
    heartbeats: int = 0
    closed: int = 0
    wake_queues_deleted: int = 0


def run_keepalive() -> KeepaliveResult:
    result = KeepaliveResult()
    connections = list(WsConnection.scan())
    queues = load_queues(c.queue_id for c in connections)
    if connections:
        with ThreadPoolExecutor(max_workers=min(WORKERS, len(connections))) as pool:
            outcomes = list(pool.map(lambda c: _keep(c, queues.get(c.queue_id)), connections))
        result.heartbeats = sum(outcomes)
        result.closed = len(outcomes) - result.heartbeats
    result.wake_queues_deleted = _sweep_wake_queues()
    logger.info("keepalive", extra=result.__dict__)
    return result


def _keep(connection: WsConnection, queue: EventQueue | None) -> bool:
    """Sends the connection a heartbeat; False if it was closed instead."""
    try:
        if queue is None or not is_live(queue):
            raise ApiError("queue gone")
        acknowledge(queue, -1)   # extends the queue's life
        appended = append(queue, [heartbeat()])
        if appended.conn == connection.connection_id:
            deliver(queue, appended)
            return True
    except ApiError:
        queue = None
    except Exception:  # noqa: BLE001 - one connection's failure must not stop the sweep
        logger.exception("keepalive failed", extra={"connection": connection.connection_id})
        return True
    push.close(connection.connection_id)
    forget(queue, connection.connection_id)
    return False


def _sweep_wake_queues() -> int:
    """Deletes the wake queues of event queues that are gone or expired."""
    wake_queues = list_wake_queues()
    live = {q.queue_id for q in load_queues(wake_queues).values() if is_live(q)}
    gone = [url for queue_id, url in wake_queues.items() if queue_id not in live]
    for url in gone:
        delete_wake_queue(url)
    return len(gone)
