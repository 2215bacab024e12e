/** The URLs a client follows for an execution, under the server's root_path. */
export class ExecutionUrls {
  constructor(private readonly rootPath: string) {}

  status(executionId: string): string {
    return `${this.rootPath}/executions/${executionId}`;
  }

  response(executionId: string, interactionId: string): string {
    return `${this.status(executionId)}/interactions/${interactionId}/response`;
  }

  stream(executionId: string): string {
    return `${this.status(executionId)}/stream`;
  }
}
