// The pool's worker in node (a worker_thread): worker.js on its parent port.
import { parentPort } from "node:worker_threads";
import { serve } from "./worker.js";

serve((m, transfer) => parentPort.postMessage(m, transfer), (f) => parentPort.on("message", f));
