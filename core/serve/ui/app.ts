console.log('reasonix ui');
