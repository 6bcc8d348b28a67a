// Runs before GraphiQL's bundle, because Monaco reads its environment as it loads: its workers come from this
// gateway (the stock page fetched them from a CDN), and the options come from the JSON block in the page, since the
// Content-Security-Policy allows no inline script.
const workers = {
  editorWorkerService: '/graphql/assets/editor.worker.js',
  json: '/graphql/assets/json.worker.js',
  graphql: '/graphql/assets/graphql.worker.js',
};
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] };
document.addEventListener('DOMContentLoaded', () => {
  const options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
});
