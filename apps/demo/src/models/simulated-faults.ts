import type { DemoModel } from './demo-model.js';

/** The error a simulated provider outage throws. */
export class ProviderOutageError extends Error {
  override readonly name = 'ProviderOutageError';
}

/**
 * Wraps a model so that the turn fails like a provider outage: the call after the first round of
 * tools answers "503", and an answer without tool calls is lost in transit. Used once by the demo
 * to show that a failed turn leaves the session exactly as it was.
 */
export function withOutage(model: DemoModel): DemoModel {
  return {
    ...model,
    async respond(request) {
      if (request.round >= 1) {
        throw new ProviderOutageError(
          'the model provider answered HTTP 503 Service Unavailable (simulated outage)',
        );
      }
      const response = await model.respond(request);
      if (!response.output.some((item) => item.type === 'function_call')) {
        throw new ProviderOutageError(
          'the connection to the model provider dropped before the answer arrived (simulated outage)',
        );
      }
      return response;
    },
  };
}

/**
 * Wraps a model so that the user interrupts the turn when the model answers without calling a
 * tool (the demo otherwise interrupts when a tool starts): whatever the model does, the turn is
 * interrupted before it can commit.
 */
export function withInterruptOnAnswer(model: DemoModel, interrupt: () => unknown): DemoModel {
  return {
    ...model,
    async respond(request) {
      const response = await model.respond(request);
      if (response.output.some((item) => item.type === 'function_call')) return response;
      void interrupt();
      request.signal.throwIfAborted();
      return response;
    },
  };
}
