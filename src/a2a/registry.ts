/** The built-in bindings, registered once under their names. */
import { createInprocTransport } from './inproc.js';
import { createNatsTransport } from './nats.js';
import { createTransport, registerTransport } from './transport.js';

registerTransport('inproc', createInprocTransport);
registerTransport('nats', createNatsTransport);

export { createTransport };
