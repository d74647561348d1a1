// The pool's worker in a browser (a module Web Worker): worker.js on its
// global scope's messages.
import { serve } from "./worker.js";

serve((m, transfer) => self.postMessage(m, transfer), (f) => { self.onmessage = (e) => f(e.data); });
