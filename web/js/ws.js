// One WebSocket to the server, reconnecting with back-off; messages dispatch on their `type`.
export class Socket {
  constructor(tokenFn, handlers, onState) {
    this.tokenFn = tokenFn;
    this.handlers = handlers;
    this.onState = onState;
    this.delay = 500;
    this.closedByUs = false;
    this.queue = [];
  }

  open() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // The token goes in the first message, never in the URL (URLs end up in logs).
    this.ws = new WebSocket(`${proto}://${location.host}/ws`);
    this.ws.onopen = () => {
      this.delay = 500;
      this.onState(true);
      this.ws.send(JSON.stringify({ type: "auth", token: this.tokenFn() }));
      for (const msg of this.queue.splice(0)) this.ws.send(msg);
    };
    this.ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      const handler = this.handlers[msg.type];
      if (!handler) throw new Error(`unknown message type ${msg.type}`);
      handler(msg);
    };
    this.ws.onclose = (ev) => {
      if (this.closedByUs) return; // signed out or replaced: nothing to reconnect, nothing to warn about
      if (ev.code === 4401) { // the token is no longer valid: the page signs out, it does not reconnect
        this.handlers.unauthorized?.();
        return;
      }
      this.onState(false);
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 10000);
    };
  }

  send(msg) {
    const text = JSON.stringify(msg);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.queue.push(text);
  }

  close() {
    this.closedByUs = true;
    this.ws?.close();
  }
}
