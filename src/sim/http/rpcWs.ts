import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../lib/logger.js';
import { PubSubHub } from '../rpc/index.js';
import type { SimContext } from './context.js';

/** Largest PubSub frame accepted. */
const MAX_FRAME_BYTES = 1 << 20;
/** Real ms a client gets to answer the close handshake before its socket is cut. */
const CLOSE_GRACE_MS = 200;

/** A PubSub server listening on a port of its own. */
export interface RpcWebSocketServer {
  port: number;
  close(): void;
}

/**
 * Serves the Solana PubSub WebSocket on the simulator's server at /rpc, and (as a local validator listens for
 * PubSub on the RPC port + 1, where web3.js looks when given no wsEndpoint) on port + 1 as well when that port is
 * free. `close()` closes every socket and timer it opened.
 */
export function attachRpcWebSocket(server: Server, ctx: SimContext): { close(): void } {
  const hub = new PubSubHub(ctx);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('connection', (ws: WebSocket) => bindSocket(ws, hub, ctx.logger));
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/rpc' && path !== '/rpc/') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);

  let closed = false;
  let extra: RpcWebSocketServer | undefined;
  const openNextPort = (): void => {
    const address = server.address() as AddressInfo | null;
    if (!address || typeof address !== 'object') return;
    const port = address.port + 1;
    listenPubSub(port, address.address, hub, ctx.logger).then(
      (s) => {
        if (closed) s.close();
        else extra = s;
      },
      (err: unknown) => ctx.logger.debug({ err, port }, 'rpc pubsub: port + 1 is not available; PubSub is served at /rpc only'),
    );
  };
  if (server.listening) openNextPort();
  else server.once('listening', openNextPort);

  return {
    close() {
      closed = true;
      server.off('upgrade', onUpgrade);
      server.off('listening', openNextPort);
      closeSockets(wss);
      extra?.close();
      hub.close();
    },
  };
}

/** Serves the Solana PubSub WebSocket on a port of its own (any path), as a local validator does on RPC port + 1. */
export async function startRpcWebSocketServer(port: number, host: string, ctx: SimContext): Promise<RpcWebSocketServer> {
  const hub = new PubSubHub(ctx);
  try {
    const s = await listenPubSub(port, host, hub, ctx.logger);
    return {
      port: s.port,
      close() {
        s.close();
        hub.close();
      },
    };
  } catch (err) {
    hub.close();
    throw err;
  }
}

async function listenPubSub(port: number, host: string, hub: PubSubHub, logger: Logger): Promise<RpcWebSocketServer> {
  const http = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end('Upgrade Required');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => bindSocket(ws, hub, logger));
  });
  http.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ port, host, exclusive: true }, () => {
      http.off('error', reject);
      resolve();
    });
  });
  http.on('error', (err) => logger.debug({ err, port }, 'rpc pubsub server error'));
  return {
    port: (http.address() as AddressInfo).port,
    close() {
      closeSockets(wss);
      http.closeAllConnections();
      http.close();
    },
  };
}

function bindSocket(ws: WebSocket, hub: PubSubHub, logger: Logger): void {
  const connection = hub.connect({
    send: (text) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    },
  });
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(new Uint8Array(data)).toString('utf8');
    connection.receive(text);
  });
  ws.on('close', () => connection.close());
  ws.on('error', (err) => logger.debug({ err }, 'rpc pubsub socket error'));
}

/** Closes every client with 1000 (web3.js then does not reconnect), cutting those that do not answer in time. */
function closeSockets(wss: WebSocketServer): void {
  for (const ws of wss.clients) {
    ws.close(1000, 'server closing');
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
  wss.close();
}
